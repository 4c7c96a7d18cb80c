"""The interactive mode: read a line, run it, show the run as it happens, repeat.

A line starting with `/` is a command (COMMANDS), unless it is a skill or prompt template.
Reply text streams; a tool call gets a start line, an end line and a preview of its result.
Ctrl-C aborts a run; Ctrl-D or `/quit` leave. Pi's is a full-screen TUI; a line loop is enough."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from pi.agent import MessageEnd, MessageUpdate, ToolExecutionEnd, ToolExecutionStart
from pi.ai import AssistantMessage, TextContent, UserMessage
from pi.ai.messages import json_text
from pi.coding_agent.runtime import commands
from pi.coding_agent.runtime.events import CompactionEnd, CompactionStart, RuntimeEvent
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.entries import SessionError
from pi.coding_agent.session.show import printable
from pi.modes.print_mode import first_line, progress_note

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

PROMPT = "> "
HINT = "/new /compact /model /fork /export /quit; Ctrl-C aborts a run; Ctrl-D quits"
ARGS_WIDTH = 60  # a tool call's arguments, flattened onto one line
PREVIEW_LINES = 4  # a tool's result as a person sees it scroll by (the model gets it all)
PREVIEW_WIDTH = 100


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def short_args(args: dict[str, Any]) -> str:
    """`path=greeting.txt, limit=5` on one line, cut to ARGS_WIDTH characters."""
    parts = [f"{key}={value if isinstance(value, str) else json_text(value)}"
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
    """The runtime (replaced by /new and /fork), the console, and a listener printing runs."""

    def __init__(self, runtime: Runtime, console: Console) -> None:
        self.console = console
        self.line_open = False  # streamed text was printed and its line is not ended yet
        self.running = False
        self.runtime, self.unsubscribe = runtime, runtime.subscribe(self.show)

    def switch(self, runtime: Runtime) -> None:
        self.unsubscribe()
        self.runtime, self.unsubscribe = runtime, runtime.subscribe(self.show)

    def say(self, text: str, style: str = "") -> None:
        """A line of its own, even if streamed text was still going on the current one."""
        self.end_line()
        self.console.print(Text(printable(text, keep="\n\t"), style), soft_wrap=True)

    def end_line(self) -> None:
        if self.line_open:
            self.console.print()
            self.line_open = False

    def show(self, event: RuntimeEvent) -> None:
        if isinstance(event, MessageUpdate) and event.event.type in ("text_delta",
                                                                     "thinking_delta"):
            style = "dim" if event.event.type == "thinking_delta" else ""
            delta = printable(getattr(event.event, "delta", ""), keep="\n\t")  # a model's escapes
            self.console.print(Text(delta, style), end="", soft_wrap=True)
            self.line_open = True
        elif isinstance(event, MessageUpdate) and event.event.type in ("text_end", "thinking_end"):
            self.end_line()
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            if event.message.stop_reason == "aborted":
                self.say("(aborted)", "yellow")
            elif event.message.stop_reason == "error":
                self.say(f"error: {first_line(event.message.error_message or '')}", "red")
        elif isinstance(event, ToolExecutionStart):
            self.say(f"→ {event.tool_name} {short_args(event.args)}", "cyan")
        elif isinstance(event, ToolExecutionEnd):
            said = "\n".join(b.text for b in event.result.content if isinstance(b, TextContent))
            if event.is_error:
                return self.say(f"✗ {event.tool_name} error: {first_line(said)}", "red")
            self.say(f"✓ {event.tool_name} ok", "green")
            for line in result_preview(said):
                self.say("  " + line, "dim")
        elif isinstance(event, CompactionStart) and event.reason != "manual":
            self.say(f"⟳ compacting ({event.reason})…", "yellow")
        elif isinstance(event, CompactionEnd) and event.reason != "manual":  # /compact says its own
            if event.entry is None:
                self.say(f"⟳ {event.error_message}", "red")
            else:
                self.say(f"⟳ compacted: {event.entry.tokens_before} tokens before", "yellow")
        elif (note := progress_note(event)) is not None:  # a retry, the turn limit
            self.say(note, "yellow")

    async def handle_line(self, line: str) -> bool:
        """Run one line: a command, or a prompt. True means quit."""
        name, _, argument = line[1:].partition(" ")
        is_command = line.startswith("/") and not line.startswith("/skill:")
        if is_command and name in ("quit", "exit"):
            return True
        try:
            if is_command and name in COMMANDS:
                await COMMANDS[name](self, argument.strip())
            elif is_command and self.runtime.assembly.resources.expand_input(line) is None:
                self.say(f"unknown command /{name} ({HINT})", "red")
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


# The slash commands: each calls the runtime or runtime/commands.py, as rpc mode does.

async def new(screen: Terminal, _: str) -> None:
    screen.switch(await commands.new_session(screen.runtime))
    screen.say(f"new session {screen.runtime.writer.path}")


async def compact(screen: Terminal, focus: str) -> None:
    if isinstance(result := await screen.runtime.compact(focus or None), str):
        screen.say(f"nothing compacted: {result}", "yellow")
    else:
        screen.say(f"compacted: {result.tokens_before} tokens before, new entry {result.id}")


async def model(screen: Terminal, ref: str) -> None:
    current = screen.runtime.config.model
    models = {f"{m.provider}/{m.id}": m for m in screen.runtime.available_models}
    if not ref:
        screen.say(f"model {current.provider}/{current.id}, context window "
                   f"{current.context_window}; available: {', '.join(sorted(models))}")
    elif (chosen := models.get(ref)) is None:
        screen.say(f"/model: {ref} is not available ({', '.join(sorted(models))})", "red")
    else:
        screen.runtime.set_model(chosen)
        screen.say(f"model is now {ref}")


async def fork(screen: Terminal, entry_id: str) -> None:
    """Without an id, the user messages to fork from; with one, Pi's fork into a new file."""
    if not entry_id:
        for listed_id, text in commands.fork_points(screen.runtime):
            screen.say(f"{listed_id}  {cut(' '.join(text.split()), PREVIEW_WIDTH)}")
        return
    point = commands.fork_point(screen.runtime, entry_id)
    screen.switch(await commands.fork(screen.runtime, point))
    screen.say(f"forked to {screen.runtime.writer.path}; the message was: "
               f"{commands.message_text(point.message)}")


async def export(screen: Terminal, file: str) -> None:
    try:
        screen.say(f"exported the current branch to {commands.export_html(screen.runtime, file)}")
    except OSError as error:
        screen.say(f"/export: {error.filename or file}: {error.strerror or error}", "red")


COMMANDS: dict[str, Callable[[Terminal, str], Awaitable[None]]] = {
    "new": new, "compact": compact, "model": model, "fork": fork, "export": export}


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
    return [commands.message_text(m) for m in runtime.messages if isinstance(m, UserMessage)]


async def run_interactive(runtime: Runtime, console: Console,
                          input_lines: Iterator[str] | None = None) -> Runtime:
    """Talk to `runtime` until /quit or end of input; lines come from `input_lines` if given,
    else from the terminal's line editor (or stdin, when it is a pipe). Returns the runtime
    in use at the end (/new and /fork replace it) for the caller to close."""
    screen = Terminal(runtime, console)
    loop = asyncio.get_running_loop()
    try:  # Ctrl-C aborts a run; where the loop takes no signals it keeps its usual meaning
        loop.add_signal_handler(signal.SIGINT, screen.interrupt)
        handled = True
    except (NotImplementedError, RuntimeError, ValueError):
        handled = False
    if input_lines is None and sys.stdin.isatty() and sys.stdout.isatty():
        lines = edited_lines(earlier_prompts(runtime),
                             lambda: screen.say("(Ctrl-D or /quit leaves)", "dim"))
    else:
        lines = given_lines(console, sys.stdin if input_lines is None else input_lines)
    model = runtime.config.model
    screen.say(f"pi-course · {model.provider}/{model.id} · session {runtime.writer.path}", "bold")
    for note in runtime.assembly.diagnostics:
        screen.say(note, "yellow")
    screen.say(HINT, "dim")
    try:
        async for line in lines:
            if await screen.handle_line(line.strip()):
                break
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
        screen.unsubscribe()
    screen.say("bye", "dim")
    return screen.runtime
