"""A virtual clock, so delays and timestamps never depend on real time.

Byte-reproducible runs rule out the wall clock. The MockModel asks this clock for message
timestamps and sleeps on it for scripted delays; sleeping only moves the virtual time forward
and lets other tasks run once, so tests with long "latency" still finish instantly.
"""

from __future__ import annotations

import asyncio

JANUARY_1_2026_MS = 1_767_225_600_000


class FakeClock:
    """Virtual milliseconds since the Unix epoch, advanced only by `sleep` and `advance`."""

    def __init__(self, start_ms: int = JANUARY_1_2026_MS) -> None:
        self._now_ms = start_ms

    def now_ms(self) -> int:
        """The current virtual time in milliseconds."""
        return self._now_ms

    def advance(self, ms: int) -> None:
        """Move virtual time forward by `ms` without yielding to the event loop."""
        if ms < 0:
            raise ValueError(f"a clock cannot go backwards (advance by {ms} ms)")
        self._now_ms += ms

    async def sleep(self, ms: int) -> None:
        """Pretend `ms` milliseconds pass: advance virtual time, then yield once."""
        self.advance(ms)
        await asyncio.sleep(0)
