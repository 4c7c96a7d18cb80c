"""Collect a command's output without keeping all of it in memory.

A command can print gigabytes. The collector counts every byte and line, keeps only a
bounded tail in memory (enough for the 50 KB the model will see), and once the output is
larger than the model may see it also streams everything to a log file, whose path the notice
gives: the model can `read` or `grep` the full output there. Pi keeps a rolling buffer too,
but counts lines inside the buffer only, so its "lines a-b of N" are wrong for big outputs;
counting every newline as it passes keeps these numbers true.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from pi.coding_agent.tools.truncate import DEFAULT_MAX_BYTES, TruncationResult, truncate_tail


class OutputCollector:
    """Bytes in, in arrival order; a tail-truncated text and, if needed, a full log out."""

    def __init__(self, log_path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.log_path = log_path
        self.max_bytes = max_bytes
        self.total_bytes = 0
        self.newlines = 0
        self.last_line_bytes = 0  # bytes since the last newline: the size of the last line
        self._tail = bytearray()
        self._log: BinaryIO | None = None

    def add(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        cut = chunk.rfind(b"\n")
        self.last_line_bytes = (
            len(chunk) - cut - 1 if cut >= 0 else self.last_line_bytes + len(chunk)
        )
        self._tail += chunk
        if self._log is None and self.total_bytes > self.max_bytes:
            self._log = open(self.log_path, "wb")  # noqa: SIM115 - kept open across chunks
            self._log.write(self._tail)  # nothing was dropped before the log was opened
        elif self._log is not None:
            self._log.write(chunk)
        if self._log is not None and len(self._tail) > 2 * self.max_bytes:
            del self._tail[: len(self._tail) - 2 * self.max_bytes]

    def text(self) -> str:
        return self._tail.decode("utf-8", errors="replace")

    def finish(self) -> tuple[TruncationResult, Path | None]:
        """The truncated tail and the log's path (written now if lines alone were too many)."""
        result = truncate_tail(self.text())
        if result.truncated and self._log is None:
            self._log = open(self.log_path, "wb")  # noqa: SIM115
            self._log.write(self._tail)
        if self._log is None:
            return result, None
        self._log.close()
        counted = replace(result, total_lines=self.newlines + 1, total_bytes=self.total_bytes)
        return counted, self.log_path

    def close(self) -> None:
        if self._log is not None and not self._log.closed:
            self._log.close()
