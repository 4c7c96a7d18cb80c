"""One file, one writer at a time; different files in parallel.

The agent loop of step 06 runs a turn's tool calls concurrently. Two edits of the same file
in one turn would otherwise both read the original, and the second write would silently undo
the first. So `write` and `edit` take the file's lock for the whole read-modify-write, while
edits of other files go on at the same time. Pi does the same with a per-path queue
(`withFileMutationQueue`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

WriteHook = Callable[[Path], Awaitable[None]]


class FileLocks:
    """An `asyncio.Lock` per resolved path, created on first use and shared by every tool."""

    def __init__(self, before_write: WriteHook | None = None) -> None:
        self._locks: dict[Path, asyncio.Lock] = {}
        # Awaited inside the lock just before a file is written. Tests inject a hook here to
        # hold a writer at its most fragile moment and prove that nobody else gets in.
        self._before_write = before_write

    def lock(self, path: Path) -> asyncio.Lock:
        """The lock of `path` (already resolved, so two spellings of one file share it)."""
        return self._locks.setdefault(path, asyncio.Lock())

    async def before_write(self, path: Path) -> None:
        if self._before_write is not None:
            await self._before_write(path)
