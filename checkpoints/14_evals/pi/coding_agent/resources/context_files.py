"""Step 11: project instructions, the `AGENTS.md` files a model should read before working.

A repository explains itself to agents in `AGENTS.md` (or `CLAUDE.md`, the older name): how to
run the tests, what not to touch. Instructions stack: the user's own file in the agent folder
comes first, then every folder from the filesystem root down to the working directory, so the
most specific file is read last and can refine the general ones. Each folder contributes at
most one file, `AGENTS.md` when it has both. The files go into the system prompt whole, each
under its own heading with its path.

`ceiling` stops the climb below the filesystem root; Pi always starts at the root. Tests and
the demo set it so that a stray `/tmp/AGENTS.md` cannot change their output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str


def context_file_in(folder: Path) -> ContextFile | None:
    """The first readable file of CONTEXT_FILE_NAMES in `folder`, or None."""
    for name in CONTEXT_FILE_NAMES:
        path = folder / name
        try:
            return ContextFile(path, path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return None


def folders_down_to(cwd: Path, ceiling: Path | None) -> list[Path]:
    """The root (or `ceiling`), each folder below it, and finally `cwd` itself."""
    chain = [*reversed(cwd.parents), cwd]
    if ceiling is None:
        return chain
    return [folder for folder in chain if folder.is_relative_to(ceiling)]


def load_context_files(cwd: Path, agent_dir: Path, ceiling: Path | None = None) -> (
    tuple[ContextFile, ...]
):
    """The agent folder's file, then one per folder from the top down to `cwd`, no repeats."""
    found: list[ContextFile] = []
    seen: set[Path] = set()
    for folder in [agent_dir, *folders_down_to(cwd, ceiling)]:
        context = context_file_in(folder)
        if context is not None and context.path.resolve() not in seen:
            seen.add(context.path.resolve())
            found.append(context)
    return tuple(found)
