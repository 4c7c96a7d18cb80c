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


def load_context_files(cwd: Path, agent_dir: Path, ceiling: Path | None = None,
                       problems: list[Diagnostic] | None = None) -> tuple[ContextFile, ...]:
    """The agent folder's file, then one per folder from the top down to `cwd`, no repeats;
    files that are there but must not be read are reported in `problems`, if given."""
    chain = [*reversed(cwd.parents), cwd]
    folders = [agent_dir, *(f for f in chain if ceiling is None or f.is_relative_to(ceiling))]
    found: dict[Path, ContextFile] = {}
    for folder in folders:
        for name in CONTEXT_FILE_NAMES:  # the first readable one is the folder's file
            path = folder / name
            try:
                content = read_inside(path, folder)
            except Unsafe as problem:
                if problems is not None:
                    problems.append(warning(path, str(problem)))
                continue
            if content is not None:
                found.setdefault(path.resolve(), ContextFile(path, content))
                break
    return tuple(found.values())
