"""Project instructions: the `AGENTS.md` (or older `CLAUDE.md`) files a model reads first.

They stack, general to specific: the agent folder's file, then one per folder from the root
(or `ceiling`, which keeps tests from seeing a stray `/tmp/AGENTS.md`) down to the working
directory, `AGENTS.md` winning in a folder that has both. Each goes into the system prompt
whole, under its path."""

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


def read_inside(path: Path, folder: Path, problems: list[Diagnostic] | None = None) -> str | None:
    """The text of `path`, a regular file inside `folder`'s tree; None when it is not there, or
    when it is there but must not be read (why goes into `problems`, if given). It all goes to
    the model, so a link leading out (to `~/.ssh/id_rsa`) is refused, and so is a device or a
    FIFO (`/dev/zero` never ends, a FIFO never answers)."""
    if not path.is_symlink() and not path.exists():
        return None
    try:
        real = path.resolve()
        if not real.is_relative_to(folder.resolve()):
            problem = f"links to {real}, outside {folder}; not read"
        else:
            return read_file(real)
    except NotAFile as error:
        problem = f"{error.strerror}; not read"
    except RuntimeError:  # a link loop
        problem = "is a link that loops; not read"
    except OSError as error:
        problem = f"cannot be read ({error.strerror or error})"
    except UnicodeDecodeError:
        problem = "is not valid UTF-8; not read"
    if problems is not None:
        problems.append(warning(path, problem))
    return None


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
            content = read_inside(path, folder, problems)
            if content is not None:
                found.setdefault(path.resolve(), ContextFile(path, content))
                break
    return tuple(found.values())
