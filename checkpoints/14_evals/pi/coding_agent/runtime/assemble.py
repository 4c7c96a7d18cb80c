"""Put the parts together in Pi's order and open the session they write to: tools, then the
resources that describe them, then the loop's configuration with the extensions' hooks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pi.agent import LoopConfig, ToolRegistry
from pi.ai import StreamOptions
from pi.coding_agent.extensions.loader import LoadedExtensions, discover, load_extensions
from pi.coding_agent.extensions.runner import ExtensionRunner, tool_hooks
from pi.coding_agent.messages import convert_to_llm
from pi.coding_agent.resources.loader import (
    ResourceLoader, Resources, default_agent_dir, trust_everything, trust_nothing,
)
from pi.coding_agent.resources.system_prompt import tool_prompts_for
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.session.entries import CURRENT_VERSION, SessionHeader
from pi.coding_agent.session.entries import SessionError
from pi.coding_agent.session.entries import iso_timestamp
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import sessions_root, start_session
from pi.coding_agent.session.writer import SessionWriter
from pi.coding_agent.tools.sets import default_tools
from pi.coding_agent.tools.workspace import Workspace


@dataclass(frozen=True)
class Assembly:
    loop: LoopConfig
    resources: Resources
    extensions: LoadedExtensions
    runner: ExtensionRunner
    diagnostics: tuple[str, ...]


def assemble(config: RuntimeConfig) -> Assembly:
    core = list(config.tools) if config.tools is not None else default_tools(Workspace(config.cwd))
    extensions = load_extension_files(config, [tool.name for tool in core])
    tools = [*core, *extensions.tools()]
    loader = ResourceLoader(
        cwd=config.cwd,
        today=datetime.fromtimestamp(config.clock() / 1000, tz=UTC).date(),
        agent_dir=config.agent_dir or default_agent_dir(),
        trust=trust_everything if config.trusted else trust_nothing,
        tool_names=tuple(tool.name for tool in tools),
        tool_prompts=tool_prompts_for(tools),
        system_prompt=config.system_prompt,
        context_ceiling=config.context_ceiling,
    )
    resources = loader.load()
    runner = ExtensionRunner(extensions.extensions)
    loop = LoopConfig(
        model=config.model,
        stream=config.providers.stream,
        tools=ToolRegistry(tools),
        system_prompt=resources.system_prompt,
        options=StreamOptions(clock=config.clock),
        convert_to_llm=convert_to_llm,  # type: ignore[arg-type]
        tool_hooks=tool_hooks(runner),
        max_turns=config.max_turns,
    )
    notes = (*(d.line() for d in resources.diagnostics), *extensions.diagnostics)
    return Assembly(loop, resources, extensions, runner, tuple(notes))


def load_extension_files(config: RuntimeConfig, core_tools: list[str]) -> LoadedExtensions:
    """No agent folder (a test's runtime): only the files named in `extension_paths`."""
    paths, notes = discover(config.agent_dir, config.cwd, config.extension_paths,
                            is_trusted=lambda _: config.trusted)
    loaded = load_extensions(paths, config.cwd, config.ui, core_tools=core_tools)
    loaded.diagnostics[:0] = notes  # a missing or untrusted file is said, not skipped silently
    return loaded


def open_writer(config: RuntimeConfig) -> SessionWriter:
    """The session to append to: an existing file at the chosen leaf (or, as in Pi, its last
    entry), else a new one whose first entries name the model and the thinking level."""
    path = config.session_file
    if path is not None and path.exists():
        writer = SessionWriter.resume(read_session(path), ids=config.ids, clock=config.clock,
                                      opener=config.opener)
        if config.leaf_id is not None:
            writer.branch(config.leaf_id)
        try:
            writer.context()  # a loop of parents is found now, and said with the file's name
        except SessionError as error:
            writer.close()
            raise SessionError(f"{path}: {error}") from None
        return writer
    if path is not None:
        header = SessionHeader(version=CURRENT_VERSION, id=config.ids(),
                               timestamp=iso_timestamp(config.clock()), cwd=str(config.cwd))
        writer = SessionWriter.create(path, header, ids=config.ids, clock=config.clock,
                                      opener=config.opener)
        return introduce(writer, config)
    return new_session_file(config)


def new_session_file(config: RuntimeConfig, parent_session: str | None = None) -> SessionWriter:
    """A new session in the sessions folder, in Pi's layout."""
    writer = start_session(sessions_dir(config), str(config.cwd), config.ids(), ids=config.ids,
                           clock=config.clock, parent_session=parent_session,
                           opener=config.opener)
    return introduce(writer, config)


def introduce(writer: SessionWriter, config: RuntimeConfig) -> SessionWriter:
    """A new session's first entries: the model and thinking level it starts with."""
    writer.append_model_change(config.model.provider, config.model.id)
    writer.append_thinking_level_change(config.thinking_level)
    return writer


def sessions_dir(config: RuntimeConfig) -> Path:
    return config.sessions_dir or sessions_root(Path.home())
