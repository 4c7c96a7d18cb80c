"""What went wrong while loading resources, as values instead of exceptions.

A skill folder is written by hand and shared between people; some files in it will be
broken. Loading reports each problem as a `Diagnostic` (a warning, or a name collision that
says which file won) and goes on with the rest, so one bad file never costs the agent its
other skills. The JSON shape is Pi's `ResourceDiagnostic`, so the tests compare it with
Pi's real output field by field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class Collision:
    """Two resources of one kind share a name: the first one found wins."""

    resource_type: Literal["skill", "prompt"]
    name: str
    winner_path: Path
    loser_path: Path

    def to_json(self) -> dict[str, Any]:
        return {"resourceType": self.resource_type, "name": self.name,
                "winnerPath": str(self.winner_path), "loserPath": str(self.loser_path)}


@dataclass(frozen=True)
class Diagnostic:
    """One problem with one file (or path), worded for the person who wrote it."""

    type: Literal["warning", "collision"]
    message: str
    path: Path
    collision: Collision | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "message": self.message, "path": str(self.path)}
        if self.collision is not None:
            data["collision"] = self.collision.to_json()
        return data

    def line(self) -> str:
        """One line for a terminal: `path: warning: message`."""
        return f"{self.path}: {self.type}: {self.message}"


def warning(path: Path, message: str) -> Diagnostic:
    return Diagnostic("warning", message, path)


def collision(kind: Literal["skill", "prompt"], name: str, winner: Path, loser: Path) -> (
    Diagnostic
):
    return Diagnostic("collision", f'name "{name}" collision', loser,
                      Collision(kind, name, winner, loser))
