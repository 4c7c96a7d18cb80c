"""Where the interactive mode's lines come from: a line editor with history, or a pipe.

In a terminal the prompt is prompt_toolkit's line editor: the cursor keys, Home/End and the
usual Emacs keys edit the line, and Up/Down walk through the prompts typed before. The history
starts with the prompts of the session being continued and is kept in memory only: what was
typed is on disk once, in the session file, and nowhere else. Ctrl-C at the prompt only
clears it and says how to leave; Ctrl-D on an empty line leaves. When stdin is not a
terminal (a pipe), lines are read plainly, one per line; a test gives its lines as a list,
and each is echoed after the prompt as if typed.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

PROMPT = "> "


class LineReader(Protocol):
    async def read(self) -> str | None:
        """The next line, or None when the person is done (Ctrl-D, end of input)."""
        ...


class GivenLines:
    """Lines given in advance (tests, scripts), echoed after the prompt as if typed."""

    def __init__(self, console: Console, lines: Iterator[str]) -> None:
        self.console, self.lines = console, lines

    async def read(self) -> str | None:
        line = next(self.lines, None)
        if line is not None:
            self.console.print(Text(PROMPT + line, "bold"), soft_wrap=True)
        return line


class EditorReader:
    """prompt_toolkit's editor, with history; `session` may be given (tests use a pipe)."""

    def __init__(self, earlier: Sequence[str], on_ctrl_c: Callable[[], None],
                 session: PromptSession[str] | None = None) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory

        self.session = session if session is not None else PromptSession(history=InMemoryHistory())
        for line in earlier:
            self.session.history.append_string(line)
        self.on_ctrl_c = on_ctrl_c

    async def read(self) -> str | None:
        while True:
            try:
                # handle_sigint=False: the mode's own Ctrl-C handler (abort a run) stays put
                return await self.session.prompt_async(PROMPT, handle_sigint=False)
            except KeyboardInterrupt:
                self.on_ctrl_c()
            except EOFError:
                return None


class PlainReader:
    """`console.input` in a daemon thread, so the event loop stays free to handle Ctrl-C."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def read(self) -> str | None:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str | None] = loop.create_future()

        def settle(value: str | None) -> None:
            if not answer.done():
                answer.set_result(value)

        def read() -> None:
            try:
                value: str | None = self.console.input(PROMPT)
            except (EOFError, OSError):
                value = None
            loop.call_soon_threadsafe(settle, value)

        threading.Thread(target=read, name="pi-input", daemon=True).start()
        line = await answer
        if line is None:
            self.console.print()  # end of input leaves the cursor after the prompt
        return line


def terminal_reader(console: Console, earlier: Sequence[str],
                    on_ctrl_c: Callable[[], None]) -> LineReader:
    """The line editor when both ends are a terminal, else plain lines."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return EditorReader(earlier, on_ctrl_c)
    return PlainReader(console)
