"""The `ui` facet, for the moments an extension needs a person.

A confirmation gate has to ask somebody. Who that is depends on the host: a terminal prompt,
an RPC client (step 13 sends `extension_ui_request` and waits for the answer), or, in tests
and demos, a script of answers. Extensions only see this small interface. Without anyone to
ask (print mode), `confirm` answers no: a gate that cannot ask must not let things through.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Literal, Protocol

NotifyLevel = Literal["info", "warning", "error"]


class ExtensionUI(Protocol):
    async def confirm(self, title: str, message: str) -> bool:
        """Ask a yes/no question; True only for an explicit yes."""
        ...

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        """Tell the person something; no answer expected."""
        ...


class NoUI:
    """Nobody to ask: every question is answered no, notes are dropped."""

    async def confirm(self, title: str, message: str) -> bool:
        return False

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        return None


class ScriptedUI:
    """Answers from a script, for tests and demos; records every question and note."""

    def __init__(self, answers: Iterable[bool] = ()) -> None:
        self.answers = deque(answers)
        self.asked: list[str] = []
        self.notes: list[str] = []

    async def confirm(self, title: str, message: str) -> bool:
        self.asked.append(f"{title}: {message}")
        return self.answers.popleft() if self.answers else False

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self.notes.append(f"{level}: {message}")
