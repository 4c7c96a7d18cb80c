"""The interactive mode: read a line, run it, show the run as it happens, repeat.

A line starting with `/` is a command (COMMANDS), unless it is a skill or prompt template.
Reply text streams; a tool call gets a start line, an end line and a preview of its result.
Ctrl-C aborts a run; Ctrl-D or `/quit` leave. Pi's is a full-screen TUI; a line loop is enough.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from pi.agent import MessageEnd, MessageUpdate, ToolExecutionEnd, ToolExecutionStart
from pi.ai import AssistantMessage, TextContent, UserMessage
from pi.coding_agent.runtime.events import AutoCompactionEnd, AutoCompactionStart, RuntimeEvent
from pi.coding_agent.runtime.runtime import Compacted, Runtime, RuntimePoisoned
from pi.coding_agent.session.entries import MessageEntry
from pi.coding_agent.session.entries import SessionError
from pi.coding_agent.session.writer import fork_session
from pi.coding_agent.session.entries import iso_timestamp
from pi.coding_agent.session.show import entry_kind, preview, row_parts, tree_rows
from pi.coding_agent.session.storage import free_path, session_file_name
from pi.modes.export_html import export_html
from pi.modes.print_mode import first_line, progress_note

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

PROMPT = "> "
ARGS_WIDTH = 60  # a tool call's arguments, flattened onto one line
PREVIEW_LINES = 4  # a tool's result as a person sees it scroll by (the model gets it all)
PREVIEW_WIDTH = 100


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def short_args(args: dict[str, Any]) -> str:
    """`path=greeting.txt, limit=5` on one line, cut to ARGS_WIDTH characters."""
    parts = [f"{key}={value if isinstance(value, str) else json.dumps(value)}"
             for key, value in args.items()]
    return cut(" ".join(", ".join(parts).split()), ARGS_WIDTH)


def result_preview(text: str) -> list[str]:
    """The first lines of a tool's output, each cut to fit, then `… N more lines` if any."""
    lines = text.rstrip("\n").splitlines()
    shown = [cut(line, PREVIEW_WIDTH) for line in lines[:PREVIEW_LINES]]
    if hidden := len(lines) - len(shown):
        shown.append(f"… {hidden} more line{'s' if hidden != 1 else ''}")
    return shown


class Terminal:
    """The runtime, the console, and what is on screen: a listener that prints each run."""

    def __init__(self, runtime: Runtime, console: Console) -> None:
        self.runtime, self.console = runtime, console
        self.line_open = False  # streamed text was printed and its line is not ended yet
        self.running = False
        self.manual_compaction = False

    def say(self, text: str, style: str = "") -> None:
        self.line(Text(text, style))

    def line(self, text: Text) -> None:
        """A line of its own, even if streamed text was still going on the current one."""
        self.end_line()
        self.console.print(text, soft_wrap=True)

    def end_line(self) -> None:
        if self.line_open:
            self.console.print()
            self.line_open = False

    def show(self, event: RuntimeEvent) -> None:
        if isinstance(event, MessageUpdate) and event.event.type in ("text_delta",
                                                                     "thinking_delta"):
            delta = getattr(event.event, "delta", "")
            style = "dim" if event.event.type == "thinking_delta" else ""
            self.console.print(Text(delta, style), end="", soft_wrap=True)
            self.line_open = True
        elif isinstance(event, MessageUpdate) and event.event.type in ("text_end",
                                                                       "thinking_end"):
            self.end_line()
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            if event.message.stop_reason == "aborted":
                self.say("(aborted)", "yellow")
            elif event.message.stop_reason == "error":
                error = first_line(event.message.error_message or "unknown error")
                self.say(f"error: {error}", "red")
        elif isinstance(event, ToolExecutionStart):
            self.line(Text.assemble(("→ ", "cyan"), (event.tool_name, "bold cyan"),
                                    f" {short_args(event.args)}"))
        elif isinstance(event, ToolExecutionEnd):
            said = "\n".join(b.text for b in event.result.content if isinstance(b, TextContent))
            if event.is_error:
                self.line(Text.assemble(("✗ ", "red"), event.tool_name,
                                        f" error: {first_line(said)}"))
                return
            self.line(Text.assemble(("✓ ", "green"), event.tool_name, " ok"))
            for line in result_preview(said):
                self.console.print(Text("  " + line, "dim"), soft_wrap=True)
        elif isinstance(event, AutoCompactionStart | AutoCompactionEnd):
            self.show_compaction(event)
        elif (note := progress_note(event)) is not None:  # a retry, the turn limit
            self.say(note, "yellow")

    def show_compaction(self, event: AutoCompactionStart | AutoCompactionEnd) -> None:
        """Automatic compactions get a line each; `/compact` says its own result."""
        if isinstance(event, AutoCompactionStart):
            self.manual_compaction = event.reason == "manual"
            if not self.manual_compaction:
                self.say(f"⟳ compacting ({event.reason})…", "yellow")
        elif self.manual_compaction:
            return
        elif event.entry_id is None:
            self.say(f"⟳ compaction failed: {event.error_message}", "red")
        else:
            self.say(f"⟳ compacted: {event.tokens_before} tokens before, entry "
                     f"{event.entry_id}", "yellow")

    async def handle_line(self, line: str) -> bool:
        """Run one line: a command, or a prompt. True means quit."""
        name, _, argument = line[1:].partition(" ")
        if line.startswith("/") and name in ("quit", "exit"):
            return True
        try:
            if line.startswith("/") and name in COMMANDS:
                await COMMANDS[name](self, argument.strip())
            elif line.startswith("/") and not line.startswith("/skill:") and \
                    self.runtime.assembly.resources.expand_input(line) is None:
                self.say(f"unknown command /{name} (/help lists them)", "red")
            elif line:
                self.running = True
                try:
                    await self.runtime.prompt(line)
                finally:
                    self.running = False
                    self.end_line()
        except (SessionError, RuntimePoisoned) as error:
            self.say(f"error: {error}", "red")
        return False

    def interrupt(self) -> None:
        """Ctrl-C: abort the run if one is going; at the prompt, only say how to leave."""
        if self.running:
            queued = self.runtime.abort()
            self.say(f"aborting the run; {len(queued)} queued message(s) handed back", "yellow")
        else:
            self.console.print()
            self.say("(Ctrl-D or /quit leaves)", "dim")
            self.console.print(PROMPT, end="")


# The slash commands; as in Python's `cmd` module, each docstring is its line in /help.

async def show_tree(screen: Terminal, _: str) -> None:
    """the session tree, current leaf marked"""
    writer = screen.runtime.writer
    top = Tree(Text(f"session {writer.header.id}", "bold"))
    nodes: dict[str | None, Tree] = {None: top}
    for parent_id, entry in tree_rows(writer.tree):
        parts = row_parts(entry, writer.tree.labels.get(entry.id), entry.id == writer.leaf_id)
        nodes[entry.id] = nodes[parent_id].add(Text.assemble(*parts))
    screen.console.print(top)


async def branch(screen: Terminal, entry_id: str) -> None:
    """ID: move the leaf; the next prompt continues there"""
    runtime = screen.runtime
    if (entry := runtime.writer.tree.by_id.get(entry_id)) is None:
        return screen.say(f"/branch: no entry with id {entry_id or '(none given)'}", "red")
    target: str | None = entry.id
    if isinstance(entry, MessageEntry) and entry.message.role == "user":  # as in Pi: re-ask it
        target = entry.parent_id
        screen.say(f"re-asking from before {entry.id}: {preview(entry)}", "dim")
    runtime.writer.branch(target)
    runtime.agent.replace_messages(runtime.writer.context().messages)  # type: ignore[arg-type]
    screen.say(f"leaf is now {target or '(before the first entry)'}; "
               "the next prompt continues from there")


async def fork(screen: Terminal, _: str) -> None:
    """copy the current path into a new session file"""
    writer, config = screen.runtime.writer, screen.runtime.config
    session_id = config.ids()
    name = session_file_name(iso_timestamp(config.clock()), session_id)
    try:
        forked = fork_session(writer, free_path(writer.path.parent / name), session_id)
        forked.close()
    except SessionError as error:
        return screen.say(f"/fork: {error}", "red")
    screen.say(f"forked to {forked.path} ({len(forked.tree.entries)} entries); this session "
               "goes on here")


async def compact(screen: Terminal, focus: str) -> None:
    """[focus]: summarise the older part of the conversation now"""
    if len(screen.runtime.messages) < 2:  # as in Pi: not worth a summary request
        screen.say("nothing compacted: no messages yet", "yellow")
    elif isinstance(result := await screen.runtime.compact(focus or None), Compacted):
        screen.say(f"compacted: {result.tokens_before} tokens before, new entry "
                   f"{result.entry_id}")
    else:
        screen.say(f"nothing compacted: {result}", "yellow")


async def model(screen: Terminal, ref: str) -> None:
    """[provider/id]: show the model, or switch to an available one (as rpc set_model)"""
    current = screen.runtime.config.model
    models = {f"{m.provider}/{m.id}": m for m in screen.runtime.available_models}
    if not ref:
        screen.say(f"model {current.provider}/{current.id} ({current.name or current.id}), "
                   f"context window {current.context_window}")
    elif (chosen := models.get(ref)) is None:
        screen.say(f"/model: {ref} is not available ({', '.join(sorted(models))})", "red")
    else:
        screen.runtime.set_model(chosen)
        screen.say(f"model is now {ref}")


async def session(screen: Terminal, _: str) -> None:
    """file, id, entry count and leaf"""
    writer = screen.runtime.writer
    leaf = writer.tree.by_id.get(writer.leaf_id or "")
    leaf_text = f"{leaf.id} ({entry_kind(leaf)})" if leaf else "none"
    screen.say(f"file {writer.path} · id {writer.header.id} · "
               f"entries {len(writer.tree.entries)} · leaf {leaf_text}")


async def export(screen: Terminal, file: str) -> None:
    """FILE.html: the current branch as a web page (a relative path is under the cwd)"""
    if not file:
        return screen.say("/export: give a file name, e.g. /export transcript.html", "red")
    path = screen.runtime.config.cwd / Path(file).expanduser()
    try:
        screen.say(f"exported the current branch to {export_html(screen.runtime, path)}")
    except OSError as error:
        screen.say(f"/export: {path}: {error.strerror or error}", "red")


async def help_text(screen: Terminal, _: str) -> None:
    """this list"""
    for name, command in COMMANDS.items():
        screen.say(f"/{name:<8} {command.__doc__}")
    screen.say("/quit     leave (Ctrl-D too)")
    screen.say("/skill:NAME args  run a skill; Ctrl-C aborts a run; Ctrl-D quits")


COMMANDS: dict[str, Callable[[Terminal, str], Awaitable[None]]] = {
    "tree": show_tree, "branch": branch, "fork": fork, "compact": compact, "model": model,
    "session": session, "export": export, "help": help_text}


async def given_lines(console: Console, lines: Iterator[str]) -> AsyncIterator[str]:
    """Lines from a pipe or a test, read off the event loop and echoed as if typed."""
    while (line := await asyncio.to_thread(next, lines, None)) is not None:
        console.print(Text(PROMPT + line.rstrip("\r\n"), "bold"), soft_wrap=True)
        yield line


async def edited_lines(earlier: Sequence[str], on_ctrl_c: Callable[[], None],
                       session: PromptSession[str] | None = None) -> AsyncIterator[str]:
    """Lines typed in prompt_toolkit's editor, its history starting with `earlier` (kept in
    memory only: what was typed is on disk once, in the session); tests give a `session`."""
    from prompt_toolkit import PromptSession

    session = session or PromptSession()
    for line in earlier:
        session.history.append_string(line)
    while True:
        try:  # handle_sigint=False: the mode's own Ctrl-C handler (abort a run) stays put
            yield await session.prompt_async(PROMPT, handle_sigint=False)
        except KeyboardInterrupt:
            on_ctrl_c()
        except EOFError:
            return


def earlier_prompts(runtime: Runtime) -> list[str]:
    """What was typed before on this branch, oldest first: Up recalls it after a restart."""
    return [m.content if isinstance(m.content, str) else
            " ".join(b.text for b in m.content if isinstance(b, TextContent))
            for m in runtime.messages if isinstance(m, UserMessage)]


def listen_for_ctrl_c(on_interrupt: Callable[[], None]) -> Callable[[], object]:
    """Route SIGINT to `on_interrupt` while the loop runs; returns the undo function. Where
    the loop cannot take signals (Windows, not the main thread) Ctrl-C keeps its meaning."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None
    return lambda: loop.remove_signal_handler(signal.SIGINT)


async def run_interactive(runtime: Runtime, console: Console,
                          input_lines: Iterator[str] | None = None) -> None:
    """Talk to `runtime` until /quit or end of input; lines come from `input_lines` if
    given, else from the terminal's line editor (or stdin, when it is a pipe)."""
    screen = Terminal(runtime, console)
    unsubscribe = runtime.subscribe(screen.show)
    stop_listening = listen_for_ctrl_c(screen.interrupt)
    if input_lines is None and sys.stdin.isatty() and sys.stdout.isatty():
        lines = edited_lines(earlier_prompts(runtime),
                             lambda: screen.say("(Ctrl-D or /quit leaves)", "dim"))
    else:
        lines = given_lines(console, sys.stdin if input_lines is None else input_lines)
    model = runtime.config.model
    screen.say(f"pi-course · {model.provider}/{model.id} · session {runtime.writer.path}", "bold")
    for note in runtime.assembly.diagnostics:
        screen.say(note, "yellow")
    screen.say("/help lists the commands; Ctrl-C aborts a run; Ctrl-D quits", "dim")
    try:
        async for line in lines:
            if await screen.handle_line(line.strip()):
                break
    finally:
        stop_listening()
        unsubscribe()
    screen.say("bye", "dim")
