"""Project instructions: the `AGENTS.md` (or older `CLAUDE.md`) files a model reads first.

They stack, general to specific: the agent folder's file, then one per folder from the root
(or `ceiling`, which keeps tests from seeing a stray `/tmp/AGENTS.md`) down to the working
directory, `AGENTS.md` winning in a folder that has both. Each goes into the system prompt
whole, under its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi.ai.bounded import NotAFile, read_file
from pi.coding_agent.resources.frontmatter import Diagnostic, warning

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str


class Unsafe(Exception):
    """A context file that is there but must not be read; the message says why."""


def read_inside(path: Path, folder: Path) -> str | None:
    """The text of `path`, a regular file inside `folder`'s tree; None when it is not there.

    It all goes to the model, so a link leading out (to `~/.ssh/id_rsa`) raises Unsafe, and
    so does a device or a FIFO (`/dev/zero` never ends, a FIFO never answers).
    """
    if not path.is_symlink() and not path.exists():
        return None
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a link loop
        raise Unsafe("is a link that loops; not read") from None
    if not real.is_relative_to(folder.resolve()):
        raise Unsafe(f"links to {real}, outside {folder}; not read")
    try:
        return read_file(real)
    except NotAFile as error:
        raise Unsafe(f"{error.strerror}; not read") from None
    except OSError as error:
        raise Unsafe(f"cannot be read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise Unsafe("is not valid UTF-8; not read") from None


def context_file_in(folder: Path, problems: list[Diagnostic] | None = None) -> ContextFile | None:
    """The first readable file of CONTEXT_FILE_NAMES in `folder`, or None; one that must not
    be read is skipped with a diagnostic in `problems`."""
    for name in CONTEXT_FILE_NAMES:
        path = folder / name
        try:
            content = read_inside(path, folder)
        except Unsafe as problem:
            if problems is not None:
                problems.append(warning(path, str(problem)))
            continue
        if content is not None:
            return ContextFile(path, content)
    return None


def folders_down_to(cwd: Path, ceiling: Path | None) -> list[Path]:
    """The root (or `ceiling`), each folder below it, and finally `cwd` itself."""
    chain = [*reversed(cwd.parents), cwd]
    if ceiling is None:
        return chain
    return [folder for folder in chain if folder.is_relative_to(ceiling)]


def load_context_files(cwd: Path, agent_dir: Path, ceiling: Path | None = None,
                       problems: list[Diagnostic] | None = None) -> tuple[ContextFile, ...]:
    """The agent folder's file, then one per folder from the top down to `cwd`, no repeats;
    files that are there but must not be read are reported in `problems`, if given."""
    found: list[ContextFile] = []
    seen: set[Path] = set()
    for folder in [agent_dir, *folders_down_to(cwd, ceiling)]:
        context = context_file_in(folder, problems)
        if context is not None and context.path.resolve() not in seen:
            seen.add(context.path.resolve())
            found.append(context)
    return tuple(found)
