"""The interactive mode: read a line, run it, show the run as it happens, repeat.

Everything that matters already lives in the Runtime (history on disk, compaction, retry);
this mode is a thin loop on top. A line starting with `/` is a command (`/tree`, `/branch`,
`/compact`, … see interactive_commands.py), except `/skill:name` and prompt templates, which
go to the runtime like any prompt, and the runtime expands them. The StreamPrinter prints the
reply while it streams. Ctrl-C during a run aborts it (the run ends with an aborted reply, and
queued messages come back); Ctrl-D, end of input or `/quit` leave. Lines are typed in a line
editor with history (interactive_input.py). Pi's interactive mode is a full-screen TUI whose
editor stays usable while the model answers; this is a line-by-line terminal loop, which is
enough to drive, test and read in a terminal.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator, Mapping

from rich.console import Console
from rich.text import Text

from pi.ai import Model, TextContent, UserMessage, builtin_models
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.errors import SessionError
from pi.modes.interactive_commands import COMMANDS
from pi.modes.interactive_input import PROMPT, GivenLines, LineReader, terminal_reader
from pi.modes.interactive_render import Screen, StreamPrinter


async def run_interactive(runtime: Runtime, console: Console,
                          input_lines: Iterator[str] | None = None, *,
                          models: Mapping[str, Model] | None = None,
                          reader: LineReader | None = None) -> None:
    """Talk to `runtime` until /quit or end of input; lines come from `input_lines` if given
    (echoed after the prompt), else from `reader` (default: the terminal's line editor, see
    interactive_input.py). `models` is what `/model` may switch to: the built-in catalog and
    the current model unless told otherwise."""
    screen = Screen(runtime, console, models if models is not None else catalog(runtime))
    printer = StreamPrinter(console)
    unsubscribe = runtime.subscribe(printer)
    busy = asyncio.Event()
    stop_listening = listen_for_ctrl_c(lambda: interrupt(screen, printer, busy.is_set()))
    if reader is None and input_lines is not None:
        reader = GivenLines(console, input_lines)
    elif reader is None:
        reader = terminal_reader(console, earlier_prompts(runtime),
                                 lambda: screen.say("(Ctrl-D or /quit leaves)", "dim"))
    greet(screen)
    try:
        while (line := await reader.read()) is not None:
            if await handle_line(screen, printer, busy, line.strip()):
                break
    finally:
        stop_listening()
        unsubscribe()
    screen.say("bye", "dim")


def earlier_prompts(runtime: Runtime) -> list[str]:
    """What was typed before on this branch, oldest first: Up recalls it after a restart."""
    return [m.content if isinstance(m.content, str) else
            " ".join(b.text for b in m.content if isinstance(b, TextContent))
            for m in runtime.messages if isinstance(m, UserMessage)]


def catalog(runtime: Runtime) -> dict[str, Model]:
    current = runtime.config.model
    return {**builtin_models(), f"{current.provider}/{current.id}": current}


def greet(screen: Screen) -> None:
    runtime, model = screen.runtime, screen.runtime.config.model
    screen.say(f"pi-course · {model.provider}/{model.id} · session {runtime.writer.path}", "bold")
    for note in runtime.assembly.diagnostics:
        screen.say(note, "yellow")
    screen.say("/help lists the commands; Ctrl-C aborts a run; Ctrl-D quits", "dim")


async def handle_line(screen: Screen, printer: StreamPrinter, busy: asyncio.Event,
                      line: str) -> bool:
    """Run one line: a command, or a prompt. True means quit."""
    if not line:
        return False
    try:
        if line.startswith("/") and not line.startswith("/skill:"):
            name, _, argument = line[1:].partition(" ")
            command = COMMANDS.get("quit" if name == "exit" else name)
            if command is not None:
                return await command[0](screen, argument.strip())
            if screen.runtime.assembly.resources.expand_input(line) is None:
                screen.say(f"unknown command /{name} (/help lists them)", "red")
                return False
        await run_prompt(screen, printer, busy, line)
    except (SessionError, RuntimePoisoned) as error:
        printer.line(Text(f"error: {error}", "red"))
    return False


async def run_prompt(screen: Screen, printer: StreamPrinter, busy: asyncio.Event,
                     text: str) -> None:
    busy.set()
    try:
        await screen.runtime.prompt(text)
    finally:
        busy.clear()
        printer.end_line()


def interrupt(screen: Screen, printer: StreamPrinter, running: bool) -> None:
    """Ctrl-C: abort the run if one is going; at the prompt, only say how to leave."""
    if not running:
        screen.console.print()
        screen.say("(Ctrl-D or /quit leaves)", "dim")
        screen.console.print(PROMPT, end="")
        return
    queued = screen.runtime.abort()
    printer.line(Text(f"aborting the run; {len(queued)} queued message(s) handed back",
                      "yellow"))


def listen_for_ctrl_c(on_interrupt: Callable[[], None]) -> Callable[[], object]:
    """Route SIGINT to `on_interrupt` while the loop runs; returns the undo function.

    Where the loop cannot take signals (Windows, a thread that is not the main one), Ctrl-C
    keeps its usual meaning.
    """
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    except (NotImplementedError, RuntimeError, ValueError):
        return lambda: None
    return lambda: loop.remove_signal_handler(signal.SIGINT)
