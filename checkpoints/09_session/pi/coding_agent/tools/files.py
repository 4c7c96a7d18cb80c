"""Small file helpers shared by the tools: atomic writes, binary detection, and
reading only regular files (a FIFO would block for ever, `/dev/zero` would never end)."""

from __future__ import annotations

import os
from pathlib import Path

from pi.ai.bounded import NotAFile, read_bytes


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that readers see the old file or the new one, never half.

    The bytes go to a temporary file in the same folder (a rename is only atomic within one
    file system), then `os.replace` swaps it in. The name is fixed, not random: callers hold
    the file's lock, so no two writers of the same file ever use it at once.
    """
    temporary = path.with_name(f".{path.name}.pi-write.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)  # an edited script stays executable
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def looks_binary(head: bytes) -> bool:
    """ripgrep's rule of thumb: a NUL byte near the start means "not text", so skip it."""
    return b"\x00" in head


def read_named(path: Path, shown: str) -> bytes:
    """The bytes of the regular file at `path`, as read and edit take them; anything else
    is an error naming what `shown` holds ("notes: is a folder, not a file")."""
    try:
        return read_bytes(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"File not found: {shown}") from None
    except NotAFile as error:
        raise ValueError(f"{shown}: {error.strerror}") from None


def read_regular(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file; None for anything else or on an error,
    so a FIFO that appears between the walk and the read cannot stall the search."""
    try:
        return read_bytes(path)
    except OSError:
        return None  # not a file, unreadable (permissions), vanished: nothing to report
