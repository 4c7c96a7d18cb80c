"""Every path a tool touches resolves inside one root folder, or is refused.

The model chooses the paths, and a model can be wrong or be talked into mischief by text it
read. So no tool opens a path directly: each asks the workspace, which strips Pi's `@` prefix,
joins relative paths to the root and refuses anything that ends up outside it, whether by
`..`, by an absolute path, or by a symlink whose target lies elsewhere. A refusal raises, and
`run_tool_call` turns it into an error result the model can read and correct.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi.coding_agent.tools.locks import FileLocks


class WorkspaceError(ValueError):
    """A path the model asked for that the workspace will not hand out."""


class Workspace:
    """The folder the coding tools work in, and the file locks its writers share."""

    def __init__(self, root: str | Path, locks: FileLocks | None = None) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise WorkspaceError(f"workspace root {self.root} is not a directory")
        self.locks = locks or FileLocks()

    def resolve(self, path: str) -> Path:
        """The real location of `path`, guaranteed to lie inside the root."""
        if "\x00" in path:
            raise WorkspaceError(f"Refused: {path!r} contains a NUL character")
        wanted = Path(os.path.expanduser(path.removeprefix("@")))
        target = wanted if wanted.is_absolute() else self.root / wanted
        try:
            real = target.resolve()  # follows every symlink that exists along the way
        except (RuntimeError, OSError):  # "Symlink loop from …": the link leads nowhere
            raise WorkspaceError(f"Refused: {path} is a link loop") from None
        if real.is_relative_to(self.root):
            return real
        if Path(os.path.normpath(target)).is_relative_to(self.root):
            raise WorkspaceError(f"Refused: {path} leads outside the workspace through a symlink")
        raise WorkspaceError(f"Refused: {path} is outside the workspace")
