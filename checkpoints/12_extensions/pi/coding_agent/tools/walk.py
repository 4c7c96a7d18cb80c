"""What `grep`, `find` and `ls` share: a walk that sees files the way git does (as Pi's
ripgrep and fd do), fd-style globs, and the capped listing they all end with."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pathspec

from pi.agent import ToolResult
from pi.ai import AbortSignal
from pi.ai.bounded import read_bytes
from pi.coding_agent.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head
from pi.coding_agent.tools.workspace import Workspace

Rules = list[tuple[Path, pathspec.GitIgnoreSpec]]
Note = tuple[str, str, Any]  # (notice for the model, details key, details value)
NO_LINE_LIMIT = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER, which Pi passes for "no limit"
GLOB_PIECES = re.compile(r"(\*\*/|/\*\*$|\*\*|\*|\?|\[!?[^\]/]+\])")
GLOB_REGEX = {"**/": "(?:.*/)?", "/**": "(?:/.*)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def read_regular(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file, else None (a FIFO must not stall a walk)."""
    try:
        return read_bytes(path)
    except OSError:
        return None  # not a file, unreadable, vanished: nothing to report


def load_rules(folder: Path, names: tuple[str, ...] = (".gitignore",)) -> Rules:
    """The rules of the ignore files `names` in `folder` (a missing or irregular one has none)."""
    lines: list[str] = []
    for name in names:
        data = read_regular(folder / name)
        lines += [] if data is None else data.decode("utf-8", errors="replace").splitlines()
    return [(folder, pathspec.GitIgnoreSpec.from_lines(lines))] if lines else []


def is_ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    """The verdict of the deepest rule that speaks about `path`; no rule means not ignored."""
    verdict: bool | None = None
    for base, spec in rules:  # shallow to deep, so deeper files have the last word
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        include = spec.check_file(relative).include
        if include is not None:
            verdict = include
    return bool(verdict)


def leads_inside(workspace: Workspace, link: Path) -> bool:
    """Whether `link` ends inside the workspace; a link loop ends nowhere, so it is skipped."""
    try:
        return link.resolve().is_relative_to(workspace.root)
    except (RuntimeError, OSError):  # "Symlink loop from …" (OSError from Python 3.13 on)
        return False


def walk(workspace: Workspace, folder: Path, signal: AbortSignal, rules: Rules | None = None) -> (
    Iterator[tuple[Path, bool]]
):
    """Every (path, is_dir) below `folder` that git would not ignore, folders before contents;
    `.git/` and links leading outside are skipped, linked folders not followed. The first call
    gathers the `.gitignore` rules of the folders above, inside the workspace."""
    if signal.aborted:
        raise RuntimeError("Operation aborted")
    if rules is None:
        rules = [rule for parent in reversed(folder.parents)
                 if parent.is_relative_to(workspace.root) for rule in load_rules(parent)]
    rules = rules + load_rules(folder)
    with os.scandir(folder) as entries:
        children = sorted(entries, key=lambda entry: entry.name)
    for entry in children:
        path, is_dir = Path(entry.path), entry.is_dir(follow_symlinks=False)
        if (is_dir and entry.name == ".git") or is_ignored(path, is_dir, rules):
            continue
        if entry.is_symlink() and not leads_inside(workspace, path):
            continue
        yield path, is_dir
        if is_dir:
            yield from walk(workspace, path, signal, rules)


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that `fullmatch`es the relative paths the glob selects, by fd's rules: without
    `/` a pattern matches a name at any depth, `**` spans folders, `[!a]` negates; no braces.
    A path pattern starts at the search folder; a leading `./` is dropped (Pi 1.x)."""
    pattern = re.sub(r"^(?:\./)+", "", pattern)

    def piece(part: str) -> str:
        if part in GLOB_REGEX:
            return GLOB_REGEX[part]
        if part.startswith("[") and len(part) > 2:
            inner = part[1:-1].replace("[", "\\[")  # a literal `[` inside a class, as in fd
            return "[^" + inner[1:] + "]" if inner.startswith("!") else "[" + inner + "]"
        return re.escape(part)

    body = "".join(piece(part) for part in GLOB_PIECES.split(pattern.removeprefix("/")) if part)
    anywhere = "/" not in pattern.rstrip("/")
    return re.compile(("(?:.*/)?" if anywhere else "") + body.rstrip("/"))


def listing_result(lines: list[str], limit_note: Note | None, extra: Note | None = None) -> (
    ToolResult
):
    """`lines` cut at 50 KB (each tool caps the item count itself), with Pi's one bracketed
    line of notices (limit, size, extra) and the same facts in `details`."""
    result = truncate_head("\n".join(lines), max_lines=NO_LINE_LIMIT)
    size_note: Note | None = None
    if result.truncated:
        size_note = (f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation",
                     result.to_details())
    kept = [note for note in (limit_note, size_note, extra) if note is not None]
    text = result.content + (f"\n\n[{'. '.join(note[0] for note in kept)}]" if kept else "")
    return ToolResult.text(text, {key: value for _, key, value in kept} or None)
