"""A project's own resources are used only when the user trusts that project.

A repository can carry a `.pi/` folder: a `SYSTEM.md` that replaces the system prompt,
appended instructions, skills and prompt templates. Whoever wrote that repository decides what
they say, so cloning a stranger's project and starting the agent in it must not hand them the
agent's instructions. The decision is a plain function of the project folder, injected by the
application (a prompt, a settings file, a command-line flag), and it is asked *before*
anything inside the project is read: an untrusted project's files are never opened.

Pi itself has no such check at this version; it loads `.pi/` of any working directory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

TrustPolicy = Callable[[Path], bool]


def trust_nothing(project: Path) -> bool:
    """The safe default: no project is trusted unless the application says so."""
    return False


def trust_everything(project: Path) -> bool:
    """Pi's behaviour: every working directory's `.pi/` is used."""
    return True


class TrustedProjects:
    """Trust the listed folders and everything below them (symlinks resolved)."""

    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders = tuple(Path(folder).resolve() for folder in folders)

    def __call__(self, project: Path) -> bool:
        real = project.resolve()
        return any(real.is_relative_to(folder) for folder in self.folders)
