"""One way to say "stop" that reaches every part of a run, like the web's AbortController
that Pi uses: unlike task cancellation it says why, and can be checked before a call starts."""

from __future__ import annotations

from collections.abc import Callable


class AbortSignal:
    """Read-only view of an abort: has it happened, why, and who wants to know."""

    def __init__(self) -> None:
        self.aborted = False
        self.reason = ""
        self._listeners: list[Callable[[], object]] = []

    def on_abort(self, listener: Callable[[], object]) -> None:
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
        """Mark the signal aborted with `reason` and call each listener once; a second abort
        changes nothing (the first reason stays)."""
        if self.signal.aborted:
            return
        self.signal.aborted = True
        self.signal.reason = reason
        listeners, self.signal._listeners = self.signal._listeners, []
        for listener in listeners:
            listener()
