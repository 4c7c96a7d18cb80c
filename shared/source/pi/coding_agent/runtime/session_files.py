"""Which session file a runtime writes to, and at which leaf it continues.

An existing file is read and appended to, continuing from the leaf the caller picked (or, as
in Pi, the last entry). A new session gets a file in Pi's layout, and its first entries say
which model and thinking level it starts with.
"""

from __future__ import annotations

from pathlib import Path

from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.entries import CURRENT_VERSION, SessionHeader
from pi.coding_agent.session.ids import iso_timestamp
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import sessions_root, start_session
from pi.coding_agent.session.writer import SessionWriter


def open_writer(config: RuntimeConfig) -> SessionWriter:
    if config.session_file is not None and config.session_file.exists():
        writer = SessionWriter.resume(read_session(config.session_file), ids=config.ids,
                                      clock=config.clock, opener=config.opener)
        if config.leaf_id is not None:
            writer.branch(config.leaf_id)
        try:
            writer.context()  # a loop of parents is found now, and said with the file's name
        except SessionError as error:
            writer.close()
            raise SessionError(f"{config.session_file}: {error}") from None
        return writer
    if config.session_file is not None:
        header = SessionHeader(version=CURRENT_VERSION, id=config.ids(),
                               timestamp=iso_timestamp(config.clock()), cwd=str(config.cwd))
        writer = SessionWriter.create(config.session_file, header, ids=config.ids,
                                      clock=config.clock, opener=config.opener)
    else:
        root = config.sessions_dir or sessions_root(Path.home())
        writer = start_session(root, str(config.cwd), config.ids(), ids=config.ids,
                               clock=config.clock, opener=config.opener)
    writer.append_model_change(config.model.provider, config.model.id)
    writer.append_thinking_level_change(config.thinking_level)  # type: ignore[arg-type]
    return writer
