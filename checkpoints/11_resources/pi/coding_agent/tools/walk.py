"""Walk a folder the way `git` sees it: `.gitignore` rules honoured, `.git/` skipped.

Pi hands searching to ripgrep and fd, which skip ignored files; without that, one `grep`
in a JavaScript project would drown in `node_modules/`. This walk does it in Python with
pathspec, which implements git's pattern rules: every `.gitignore` from the workspace root
down to the file counts, each relative to its own folder, and a deeper file may re-include
(`!pattern`) what a shallower one excluded. Hidden files are included, like `--hidden`.
Symlinked folders are not followed, and symlinked files pointing outside are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from pi.ai import AbortSignal
from pi.coding_agent.tools.files import read_regular
from pi.coding_agent.tools.workspace import Workspace

Rules = list[tuple[Path, pathspec.GitIgnoreSpec]]


def load_rules(folder: Path) -> Rules:
    """The rules of `folder/.gitignore` (none if there is no such file, or it is no file:
    a FIFO there would make every search wait for ever)."""
    data = read_regular(folder / ".gitignore")
    if data is None:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return [(folder, pathspec.GitIgnoreSpec.from_lines(lines))]


def is_ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    """The verdict of the deepest rule that speaks about `path`; no rule means not ignored."""
    verdict: bool | None = None
    for base, spec in rules:  # shallow to deep, so deeper files have the last word
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        include = spec.check_file(relative).include
        if include is not None:
            verdict = include
    return bool(verdict)


def rules_above(workspace: Workspace, folder: Path) -> Rules:
    """The rules of the root and every folder between it and `folder` (not `folder` itself)."""
    rules: Rules = []
    for parent in reversed(folder.parents):
        if parent.is_relative_to(workspace.root):
            rules += load_rules(parent)
    return rules


def leads_inside(workspace: Workspace, link: Path) -> bool:
    """Whether `link` ends inside the workspace; a link loop ends nowhere, so it is skipped."""
    try:
        return link.resolve().is_relative_to(workspace.root)
    except (RuntimeError, OSError):  # "Symlink loop from …" (OSError from Python 3.13 on)
        return False


def walk(workspace: Workspace, top: Path, signal: AbortSignal) -> Iterator[tuple[Path, bool]]:
    """Every (path, is_dir) below `top` that git would not ignore, folders before contents."""
    yield from _walk(workspace, top, rules_above(workspace, top), signal)


def _walk(workspace: Workspace, folder: Path, rules: Rules, signal: AbortSignal) -> Iterator[
    tuple[Path, bool]
]:
    if signal.aborted:
        raise RuntimeError("Operation aborted")
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
            yield from _walk(workspace, path, rules, signal)
