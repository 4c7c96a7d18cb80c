"""One way to say "stop" that reaches every part of a run.

Python's task cancellation would also stop work, but it cannot say *why*, it cannot be checked
before a call starts, and it tears through code that should still write a clean `aborted`
message. So, like Pi (which uses the web's AbortController), we pass a signal object down:
whoever does the work checks `signal.aborted` and ends with an `aborted` reply.
"""

from __future__ import annotations

from collections.abc import Callable


class AbortSignal:
    """Read-only view of an abort: has it happened, why, and who wants to know."""

    def __init__(self) -> None:
        self.aborted = False
        self.reason = ""
        self._listeners: list[Callable[[], None]] = []

    def on_abort(self, listener: Callable[[], None]) -> None:
        """Call `listener` once when the abort happens (at once if it already has)."""
        if self.aborted:
            listener()
        else:
            self._listeners.append(listener)


class AbortController:
    """The side that may abort; hand out `controller.signal`, keep the controller."""

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "aborted") -> None:
        if self.signal.aborted:
            return
        self.signal.aborted = True
        self.signal.reason = reason
        listeners, self.signal._listeners = self.signal._listeners, []
        for listener in listeners:
            listener()
