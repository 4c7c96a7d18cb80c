"""`grep`, file contents searched with a Python regex, in ripgrep-based Pi's format:
`path:12: text` per match, `path-11- text` for context; 100 matches, 500 characters a line,
50 KB in all, each limit with a notice. It runs in a thread, so an abort ends it at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import regex  # type: ignore[import-untyped, unused-ignore]
from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.ai.bounded import what_is_at
from pi.coding_agent.tools.truncate import GREP_MAX_LINE_LENGTH, truncate_line
from pi.coding_agent.tools.walk import Note, compile_glob, listing_result, read_regular, walk
from pi.coding_agent.tools.workspace import ToolParams, Workspace

LINE_TIMEOUT = 1.0  # seconds one line may take; only a runaway pattern needs that long
Pattern = Any  # a compiled `regex` pattern (the package ships no type hints)
CUT_NOTE: Note = (f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to "
                  "see full lines", "linesTruncated", True)


class GrepParams(ToolParams):
    pattern: str = Field(description="Regular expression (Python syntax), or text if literal")
    path: str | None = Field(None, description="Folder or file to search (default: workspace)")
    glob: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'")
    ignore_case: bool = Field(False, description="Match case-insensitively")
    literal: bool = Field(False, description="Treat the pattern as plain text")
    context: int = Field(0, ge=0, description="Lines to show before and after each match")
    limit: int = Field(100, ge=1, description="Maximum number of matches")


class GrepTool(AgentTool[GrepParams]):
    name = "grep"
    description = (
        "Search file contents for a regex (or literal text) below a folder, honouring "
        "`.gitignore`. Prints `path:line: text` per match. At most 100 matches by default, "
        f"lines cut at {GREP_MAX_LINE_LENGTH} characters, 50 KB in all."
    )
    parameters = GrepParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: GrepParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        top = self.workspace.resolve(params.path or ".")
        found = what_is_at(top)
        if found == "nothing":
            raise FileNotFoundError(f"Path not found: {params.path}")
        if found not in ("a file", "a folder"):
            raise ValueError(f"Not a file or folder: {params.path} is {found}")
        source = regex.escape(params.pattern) if params.literal else params.pattern
        try:  # `regex` in its re-compatible mode (V0): unlike `re`, it can time out
            flags = (regex.IGNORECASE if params.ignore_case else 0) | regex.V0
            pattern = regex.compile(source, flags)
        except (regex.error, RecursionError, OverflowError, ValueError) as error:
            raise ValueError(f"Invalid regular expression {params.pattern!r}: {error}") from None
        return await off_the_loop(lambda: self.search(top, pattern, params, signal), signal)

    def search(self, top: Path, pattern: Pattern, params: GrepParams, signal: AbortSignal) -> (
        ToolResult
    ):
        """The whole search, in a worker thread; it stops at an abort, and refuses a pattern
        still busy after LINE_TIMEOUT s on one line (`(a+)+$` on `aaaa…b` never ends)."""
        out: list[str] = []
        matches, cut = 0, False
        for path, label in files_to_search(self.workspace, top, params.glob, signal):
            lines = text_lines(path)
            for number, line in enumerate(lines, 1):
                if signal.aborted:
                    raise RuntimeError("Operation aborted")
                try:
                    if pattern.search(line, timeout=LINE_TIMEOUT, concurrent=True) is None:
                        continue
                except TimeoutError:
                    raise TimeoutError(
                        f"The pattern took more than {LINE_TIMEOUT:g} s on {path.name}:{number};"
                        " it backtracks too much (nested repeats like (a+)+). Simplify it."
                    ) from None
                if matches == params.limit:
                    return listing_result(out, (
                        f"{matches} matches limit reached. Use limit={matches * 2} for more, or "
                        "refine pattern", "matchLimitReached", matches), CUT_NOTE if cut else None)
                matches += 1
                last = min(len(lines), number + params.context)
                for current in range(max(1, number - params.context), last + 1):
                    text, was_cut = truncate_line(lines[current - 1])
                    mark = ":" if current == number else "-"
                    out.append(f"{label}{mark}{current}{mark} {text}")
                    cut = cut or was_cut
        if not matches:
            return ToolResult.text("No matches found")
        return listing_result(out, None, CUT_NOTE if cut else None)


async def off_the_loop(work: Callable[[], ToolResult], signal: AbortSignal) -> ToolResult:
    """Run `work` in a thread, so a slow search never stalls the agent; an abort returns at
    once (the thread notices it before the next line and stops)."""
    searching = asyncio.ensure_future(asyncio.to_thread(work))

    def stop() -> None:
        searching.cancel()

    signal.on_abort(stop)
    try:
        return await searching
    except asyncio.CancelledError:
        if signal.aborted:
            raise RuntimeError("Operation aborted") from None
        raise


def files_to_search(workspace: Workspace, top: Path, glob: str | None, signal: AbortSignal) -> (
    Iterator[tuple[Path, str]]
):
    """(file, label) pairs in path order; a single file is labelled by its name, like Pi."""
    if top.is_file():
        yield top, top.name
        return
    wanted = compile_glob(glob) if glob else None
    for path, is_dir in walk(workspace, top, signal):
        label = path.relative_to(top).as_posix()
        if not is_dir and (wanted is None or wanted.fullmatch(label)):
            yield path, label


def text_lines(path: Path) -> list[str]:
    """The lines of a text file; none for a binary file (a NUL near the start, ripgrep's
    rule), a FIFO or a device (reading one would wait for ever, or never end)."""
    data = read_regular(path)
    if data is None or b"\x00" in data[:8192]:
        return []
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return text.removesuffix("\n").split("\n")
