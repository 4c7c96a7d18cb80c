"""What every coding tool shares: one root no path may leave (`..`, absolute paths and links
leading out are refused), Pi's camelCase arguments, safe ways to read and write a file."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from pi.ai.bounded import NotAFile, read_bytes


class ToolParams(BaseModel):
    """Tool arguments: snake_case in Python, camelCase (`oldText`) in the schema, like Pi."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class WorkspaceError(ValueError):
    """A path the model asked for that the workspace will not hand out."""


class Workspace:
    """The folder the coding tools work in."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise WorkspaceError(f"workspace root {self.root} is not a directory")

    def resolve(self, path: str) -> Path:
        """The real location of `path`, inside the root; else a WorkspaceError: the path
        "contains a NUL character", "leads outside the workspace through a symlink", or
        "is outside the workspace". A symlink loop is refused too."""
        if "\x00" in path:
            raise WorkspaceError(f"Refused: {path!r} contains a NUL character")
        target = self.root / os.path.expanduser(path.removeprefix("@"))  # absolute: kept as is
        try:
            real = target.resolve()  # follows every symlink that exists along the way
            if any(part.is_symlink() for part in (real, *real.parents)):  # 3.13 stops at a loop
                raise RuntimeError(f"Symlink loop from {real}")
        except (RuntimeError, OSError):  # "Symlink loop from …": the link leads nowhere
            raise WorkspaceError(f"Refused: {path} is a link loop") from None
        if real.is_relative_to(self.root):
            return real
        if Path(os.path.normpath(target)).is_relative_to(self.root):
            raise WorkspaceError(f"Refused: {path} leads outside the workspace through a symlink")
        raise WorkspaceError(f"Refused: {path} is outside the workspace")


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` so readers see the old file or the new one, never half (`os.replace`)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.pi-write.tmp")  # one per process
    made = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # never a link/FIFO
    try:
        with open(made, "wb") as handle:
            handle.write(data)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)  # an edited script stays executable
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def read_named(path: Path, shown: str) -> bytes:
    """The bytes of the regular file at `path`; anything else is an error naming `shown`."""
    try:
        return read_bytes(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"File not found: {shown}") from None
    except NotAFile as error:
        raise ValueError(f"{shown}: {error.strerror}") from None
