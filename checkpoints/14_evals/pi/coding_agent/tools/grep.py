"""Step 07: `grep`, search file contents with a regex, in pure Python.

Pi runs ripgrep; this course uses `re` and the `.gitignore`-aware walk, which needs nothing
installed and is fast enough for a project. The output is what ripgrep-based Pi prints:
`path:12: text` for a match and `path-11- text` for context lines, paths relative to the
searched folder. Three limits keep it small: 100 matches (by default), 500 characters per
line, 50 KB in all; each one that bites adds a notice. Binary files are skipped. Python's
regex syntax differs from ripgrep's in corners (e.g. `\\d` also matches non-ASCII digits).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.files import looks_binary
from pi.coding_agent.tools.globs import compile_glob
from pi.coding_agent.tools.params import ToolParams
from pi.coding_agent.tools.listing import listing_result
from pi.coding_agent.tools.truncate import DEFAULT_MAX_BYTES, GREP_MAX_LINE_LENGTH, truncate_line
from pi.coding_agent.tools.walk import walk
from pi.coding_agent.tools.workspace import Workspace

DEFAULT_GREP_LIMIT = 100


class GrepParams(ToolParams):
    pattern: str = Field(description="Regular expression (Python syntax), or text if literal")
    path: str | None = Field(None, description="Folder or file to search (default: workspace)")
    glob: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'")
    ignore_case: bool = Field(False, description="Match case-insensitively")
    literal: bool = Field(False, description="Treat the pattern as plain text")
    context: int = Field(0, ge=0, description="Lines to show before and after each match")
    limit: int = Field(DEFAULT_GREP_LIMIT, ge=1, description="Maximum number of matches")


class GrepTool(AgentTool[GrepParams]):
    name = "grep"
    description = (
        "Search file contents for a regex (or literal text) below a folder, honouring "
        "`.gitignore`. Prints `path:line: text` per match. At most 100 matches by default, "
        f"lines cut at {GREP_MAX_LINE_LENGTH} characters, {DEFAULT_MAX_BYTES // 1024} KB in all."
    )
    parameters = GrepParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: GrepParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        top = self.workspace.resolve(params.path or ".")
        if not top.exists():
            raise FileNotFoundError(f"Path not found: {params.path}")
        regex = compile_pattern(params)
        lines: list[str] = []
        matches, cut = 0, False
        for path, label in files_to_search(self.workspace, top, params.glob, signal):
            for number, found in search_file(path, regex):
                if matches == params.limit:
                    return finish(lines, params.limit, cut)
                block, was_cut = context_block(found, number, params.context, label)
                lines += block
                matches, cut = matches + 1, cut or was_cut
        return finish(lines, None, cut) if matches else ToolResult.text("No matches found")


def compile_pattern(params: GrepParams) -> re.Pattern[str]:
    source = re.escape(params.pattern) if params.literal else params.pattern
    try:
        return re.compile(source, re.IGNORECASE if params.ignore_case else 0)
    except re.error as error:
        raise ValueError(f"Invalid regular expression {params.pattern!r}: {error}") from None


def files_to_search(workspace: Workspace, top: Path, glob: str | None, signal: AbortSignal) -> (
    list[tuple[Path, str]]
):
    """(file, label) pairs in path order; a single file is labelled by its name, like Pi."""
    if top.is_file():
        return [(top, top.name)]
    wanted = compile_glob(glob) if glob else None
    found = []
    for path, is_dir in walk(workspace, top, signal):
        label = path.relative_to(top).as_posix()
        if not is_dir and (wanted is None or wanted.fullmatch(label)):
            found.append((path, label))
    return found


def search_file(path: Path, regex: re.Pattern[str]) -> list[tuple[int, list[str]]]:
    """(line number, all lines of the file) for each matching line; binary files give none."""
    try:
        data = path.read_bytes()
    except OSError:
        return []  # unreadable (permissions, vanished): nothing to report from it
    if looks_binary(data[:8192]):
        return []
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.removesuffix("\n").split("\n")
    return [(number, lines) for number, line in enumerate(lines, 1) if regex.search(line)]


def context_block(lines: list[str], number: int, context: int, label: str) -> (
    tuple[list[str], bool]
):
    """The match line and its context lines, each cut to 500 characters."""
    block, cut = [], False
    for current in range(max(1, number - context), min(len(lines), number + context) + 1):
        text, was_cut = truncate_line(lines[current - 1])
        mark = ":" if current == number else "-"
        block.append(f"{label}{mark}{current}{mark} {text}")
        cut = cut or was_cut
    return block, cut


def finish(lines: list[str], limit_hit: int | None, cut: bool) -> ToolResult:
    limit_note = None
    if limit_hit is not None:
        limit_note = (f"{limit_hit} matches limit reached. Use limit={limit_hit * 2} for more, "
                      "or refine pattern", "matchLimitReached", limit_hit)
    cut_note = None
    if cut:
        cut_note = (f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to "
                    "see full lines", "linesTruncated", True)
    return listing_result(lines, limit_note, cut_note)
