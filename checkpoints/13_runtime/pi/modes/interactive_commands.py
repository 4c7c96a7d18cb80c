"""The slash commands of the interactive mode, each a small function over the Runtime.

Only `/compact` talks to the model, and none rewrites history: `/branch` only moves the leaf
(the next prompt starts a new branch there), `/fork` copies the current path into a new file,
`/model` appends a model change. Commands run between prompts and return True only to quit.
Bad input (an unknown id, a model not in the catalog) is one line, never a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from pi.coding_agent.runtime.compactor import Compacted
from pi.coding_agent.session.entries import MessageEntry
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.writer import fork_session
from pi.coding_agent.session.ids import iso_timestamp
from pi.coding_agent.session.show import entry_kind, preview
from pi.coding_agent.session.storage import free_path, session_file_name
from pi.modes.export_html import export_html
from pi.modes.interactive_render import Screen, session_tree


async def show_tree(screen: Screen, _: str) -> bool:
    screen.console.print(session_tree(screen.runtime.writer))
    return False


async def branch(screen: Screen, entry_id: str) -> bool:
    """Move the leaf. As in Pi, choosing a user message goes to its parent: you re-ask it."""
    runtime = screen.runtime
    entry = runtime.writer.tree.by_id.get(entry_id)
    if entry is None:
        screen.say(f"/branch: no entry with id {entry_id or '(none given)'}", "red")
        return False
    target: str | None = entry.id
    if isinstance(entry, MessageEntry) and entry.message.role == "user":
        target = entry.parent_id
        screen.say(f"re-asking from before {entry.id}: {preview(entry)}", "dim")
    runtime.writer.branch(target)
    runtime.agent.replace_messages(runtime.writer.context().messages)  # type: ignore[arg-type]
    screen.say(f"leaf is now {target or '(before the first entry)'}; "
               "the next prompt continues from there")
    return False


async def fork(screen: Screen, _: str) -> bool:
    """Copy the path to the leaf into a new session file next to this one."""
    runtime, config = screen.runtime, screen.runtime.config
    session_id = config.ids()
    name = session_file_name(iso_timestamp(config.clock()), session_id)
    try:
        forked = fork_session(runtime.writer, free_path(runtime.writer.path.parent / name),
                              session_id)
        forked.close()
    except SessionError as error:
        screen.say(f"/fork: {error}", "red")
        return False
    screen.say(f"forked to {forked.path} ({len(forked.tree.entries)} entries); this session "
               "goes on here")
    return False


async def compact(screen: Screen, focus: str) -> bool:
    """As in Pi, a branch with fewer than two messages is not worth a summary request."""
    if len(screen.runtime.messages) < 2:
        screen.say("nothing compacted: no messages yet", "yellow")
        return False
    result = await screen.runtime.compact(focus or None)
    if isinstance(result, Compacted):
        screen.say(f"compacted: {result.tokens_before} tokens before, new entry "
                   f"{result.entry_id}")
    else:
        screen.say(f"nothing compacted: {result}", "yellow")
    return False


async def model(screen: Screen, ref: str) -> bool:
    """Show the model; `/model provider/id` switches to a model of the catalog, nothing else."""
    runtime, current = screen.runtime, screen.runtime.config.model
    if not ref:
        screen.say(f"model {current.provider}/{current.id} ({current.name or current.id}), "
                   f"context window {current.context_window}")
        return False
    chosen = screen.models.get(ref)
    if chosen is None:
        screen.say(f"/model: {ref} is not in the catalog ({', '.join(sorted(screen.models))})",
                   "red")
        return False
    runtime.set_model(chosen)
    screen.say(f"model is now {ref}")
    return False


async def session(screen: Screen, _: str) -> bool:
    writer = screen.runtime.writer
    leaf = writer.tree.by_id.get(writer.leaf_id or "")
    leaf_text = f"{leaf.id} ({entry_kind(leaf)})" if leaf else "none"
    screen.say(f"file {writer.path} · id {writer.header.id} · "
               f"entries {len(writer.tree.entries)} · leaf {leaf_text}")
    return False


async def export(screen: Screen, file: str) -> bool:
    """The current branch as a self-contained HTML page; a relative path is under the cwd."""
    if not file:
        screen.say("/export: give a file name, e.g. /export transcript.html", "red")
        return False
    path = screen.runtime.config.cwd / Path(file).expanduser()
    try:
        screen.say(f"exported the current branch to {export_html(screen.runtime, path)}")
    except OSError as error:
        screen.say(f"/export: {path}: {error.strerror or error}", "red")
    return False


async def help_text(screen: Screen, _: str) -> bool:
    for name, (_handler, about) in COMMANDS.items():
        screen.say(f"/{name:<8} {about}")
    screen.say("/skill:NAME args  run a skill; Ctrl-C aborts a run; Ctrl-D quits")
    return False


async def quit_now(screen: Screen, _: str) -> bool:
    return True


Command = Callable[[Screen, str], Awaitable[bool]]
COMMANDS: dict[str, tuple[Command, str]] = {
    "tree": (show_tree, "the session tree, current leaf marked"),
    "branch": (branch, "ID: move the leaf; the next prompt continues there"),
    "fork": (fork, "copy the current path into a new session file"),
    "compact": (compact, "[focus]: summarise the older part of the conversation now"),
    "model": (model, "[provider/id]: show the model, or switch to one of the catalog"),
    "session": (session, "file, id, entry count and leaf"),
    "export": (export, "FILE.html: the current branch as a web page"),
    "help": (help_text, "this list"),
    "quit": (quit_now, "leave (Ctrl-D too)"),
}
