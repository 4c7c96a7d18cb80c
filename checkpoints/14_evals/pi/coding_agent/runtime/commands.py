"""What the modes ask of a runtime besides a prompt: new session, fork, clone, `!cmd`, export.
Rpc and interactive mode both call these; neither implements a command of its own."""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import replace
from html import escape
from pathlib import Path

from pi.ai import AbortSignal, AgentMessage, AssistantMessage, TextContent
from pi.ai.bounded import NotAFile, open_regular
from pi.ai.messages import json_text
from pi.coding_agent.messages import BashExecutionMessage, CodingMessage
from pi.coding_agent.runtime.config import new_session_file, sessions_dir
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import MessageEntry, SessionError, dump_line, iso_timestamp
from pi.coding_agent.session.writer import fork_session
from pi.coding_agent.session.show import entry_kind
from pi.coding_agent.session.storage import session_path
from pi.coding_agent.tools.bash import OutputCollector, run_command


def message_text(message: AgentMessage | CodingMessage) -> str:
    """The text blocks of a user or assistant message, joined; a plain string as it is."""
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def last_assistant_text(runtime: Runtime) -> str | None:
    """The text of the last reply that said something (an empty aborted reply is skipped)."""
    for message in reversed(runtime.messages):
        if isinstance(message, AssistantMessage) and message.content:
            return message_text(message)
    return None


def fork_points(runtime: Runtime) -> list[tuple[str, str]]:
    """(entry id, text) of every user message with text, on any branch, in file order
(Pi's `getUserMessagesForForking`)."""
    points = [(entry.id, message_text(entry.message)) for entry in runtime.writer.tree.entries
              if isinstance(entry, MessageEntry) and entry.message.role == "user"]
    return [(entry_id, text) for entry_id, text in points if text]


async def switch_to(runtime: Runtime, path: Path) -> Runtime:
    """A Runtime on `path` (at its last entry); the old one is closed once the new one runs."""
    fresh = Runtime(replace(runtime.config, session_file=path, leaf_id=None))
    await runtime.close()
    return fresh


async def new_session(runtime: Runtime, parent_session: str | None = None) -> Runtime:
    """An empty session in the sessions folder, starting with the model and thinking level."""
    writer = new_session_file(runtime.config, parent_session)
    writer.close()
    return await switch_to(runtime, writer.path)


def fork_point(runtime: Runtime, entry_id: str) -> MessageEntry:
    """The user message a fork starts before. Pi checks it before a running prompt is stopped,
so a wrong id changes nothing."""
    entry = runtime.writer.tree.by_id.get(entry_id)
    if not isinstance(entry, MessageEntry) or entry.message.role != "user":
        raise SessionError("Invalid entry ID for forking")
    return entry


async def fork(runtime: Runtime, point: MessageEntry) -> Runtime:
    """Pi's fork: a new file with the path before the user message `point` (whose text the
caller hands back to edit); a first message forks to an empty session."""
    if point.parent_id is None:
        return await new_session(runtime, str(runtime.writer.path))
    return await branch_off(runtime, point.parent_id)


async def branch_off(runtime: Runtime, leaf_id: str) -> Runtime:
    """A Runtime on a new file holding the path from the root to `leaf_id`."""
    config, session_id = runtime.config, runtime.config.ids()
    path = session_path(sessions_dir(config), str(config.cwd), iso_timestamp(config.clock()),
                        session_id)
    fork_session(runtime.writer, path, session_id, leaf_id).close()
    return await switch_to(runtime, path)


async def run_bash(runtime: Runtime, command: str, signal: AbortSignal) -> BashExecutionMessage:
    """Run a command in the runtime's folder, as the bash tool would, without recording it."""
    started = runtime.config.clock()
    log = Path(tempfile.gettempdir()) / f"pi-bash-{runtime.writer.header.id}-{started}.log"
    with contextlib.closing(OutputCollector(log)) as output:
        ending = await run_command(command, runtime.config.cwd, output.add, signal, None)
        truncation, full = output.finish()
    return BashExecutionMessage(command=command, output=truncation.content,
                                exit_code=ending.exit_code if ending.how == "exit" else None,
                                cancelled=ending.how != "exit", truncated=truncation.truncated,
                                full_output_path=str(full) if full else None, timestamp=started)


def record_bash(runtime: Runtime, message: BashExecutionMessage) -> None:
    """Append the command and its output to the session and the transcript (not mid-run)."""
    runtime.writer.append_message(message)  # a failure leaves the runtime poisoned
    runtime.reseed()


async def clone(runtime: Runtime) -> Runtime:
    """Pi's `clone` (0.73): a new file holding the current path up to and including the leaf."""
    if runtime.writer.leaf_id is None:
        raise SessionError("Cannot clone session: no current entry selected")
    return await branch_off(runtime, runtime.writer.leaf_id)


STYLE = "body{font:15px/1.5 sans-serif;max-width:60rem;margin:2rem auto}pre{white-space:pre-wrap}"


def transcript_html(runtime: Runtime) -> str:
    """The current branch as one page, each entry as the file stores it, escaped: no scripts,
    links or external files, since a transcript holds whatever a model or a file said."""
    writer, model = runtime.writer, runtime.config.model
    entries = [f"<h3>{escape(entry_kind(entry))}</h3>"
               f"<pre>{escape(json_text(dump_line(entry), indent=2))}</pre>"
               for entry in writer.leaf_path()]
    title = escape(f"Session {writer.header.id}")
    facts = escape(f"{writer.header.cwd} · {writer.header.timestamp} · {model.provider}/{model.id}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}'
            f"</title><style>{STYLE}</style></head><body><h1>{title}</h1><p>{facts}</p>\n"
            + "\n".join(entries) + "\n</body></html>\n")


def export_html(runtime: Runtime, file: str | None = None) -> Path:
    """The page, written to `file` under the cwd (Pi's default name) but never onto a session."""
    target = runtime.config.cwd / Path(file or f"pi-session-{runtime.writer.path.stem}.html")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open_regular(target, os.O_RDWR | os.O_CREAT) as page:  # a FIFO is refused, not waited on
        if os.pread(page.fileno(), 17, 0) == b'{"type":"session"':  # how every session begins
            raise NotAFile(target, "a session file", "an earlier export")
        page.truncate(0)
        page.write(transcript_html(runtime).encode("utf-8"))
    return target
