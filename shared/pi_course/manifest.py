"""The course manifest: what each step adds, read from `checkpoints/manifest.toml`.

The manifest is written by hand (titles, concepts, hints, reasons); `pi-course verify` checks
that every fact in it that can be derived from the source (files, public names, tests) agrees.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_course.paths import CourseError

LAST_STEP = 14


HINT_RUNGS = 3


@dataclass(frozen=True)
class Exercise:
    """One exercise: a region of a lesson file the learner writes, and the tests that judge it.

    `hints` is a ladder: a nudge, then the approach, then nearly the answer. `tests` are pytest
    node ids (`tests/test_x.py::test_name`, every parametrisation of it included).
    """

    id: str
    task: str
    hints: tuple[str, ...]
    tests: tuple[str, ...]
    minutes: int

    @property
    def hint(self) -> str:
        """The first rung: all the README and the stub ever show."""
        return self.hints[0]


@dataclass(frozen=True)
class Retired:
    test: str
    reason: str


@dataclass(frozen=True)
class Step:
    id: int
    slug: str
    title: str
    concepts: tuple[str, ...]
    files: tuple[str, ...]
    public: tuple[str, ...]
    tests: tuple[str, ...]
    why: dict[str, str]
    lesson: tuple[str, ...]
    provided: tuple[str, ...]
    retired: tuple[Retired, ...]
    exercises: tuple[Exercise, ...]

    @property
    def folder(self) -> str:
        return f"{self.id:02d}_{self.slug}"


@dataclass(frozen=True)
class Manifest:
    steps: tuple[Step, ...]

    def step(self, id: int) -> Step:
        for step in self.steps:
            if step.id == id:
                return step
        known = ", ".join(f"{s.id:02d}" for s in self.steps)
        raise CourseError(f"no step {id:02d} in the manifest (known: {known})")

    def files_until(self, id: int) -> list[str]:
        return [f for s in self.steps if s.id <= id for f in s.files]

    def hints(self, id: int) -> dict[str, str]:
        return {e.id: e.hint for e in self.step(id).exercises}


def load_manifest(path: Path) -> Manifest:
    """Read and check the manifest; a malformed record is one line naming the step and field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CourseError(f"{path}: {error}") from None
    steps = tuple(_step(record, index, path) for index, record in enumerate(data.get("step", [])))
    if [s.id for s in steps] != list(range(len(steps))):
        raise CourseError(f"{path}: steps must be numbered 0, 1, 2, … in order")
    return Manifest(steps)


def _step(record: dict[str, Any], index: int, path: Path) -> Step:
    where = f"{path.name}: step[{index}]"
    try:
        return Step(
            id=int(record["id"]),
            slug=str(record["slug"]),
            title=str(record["title"]),
            concepts=tuple(record.get("concepts", [])),
            files=tuple(record.get("files", [])),
            public=tuple(record.get("public", [])),
            tests=tuple(record.get("tests", [])),
            why=dict(record.get("why", {})),
            lesson=tuple(record.get("lesson", [])),
            provided=tuple(record.get("provided", [])),
            retired=tuple(Retired(r["test"], r["reason"]) for r in record.get("retired", [])),
            exercises=tuple(
                _exercise(e, f"{where}.exercise[{i}]")
                for i, e in enumerate(record.get("exercise", []))
            ),
        )
    except KeyError as missing:
        raise CourseError(f"{where}: missing field {missing}") from None


def _exercise(record: dict[str, Any], where: str) -> Exercise:
    hints = record["hints"]
    if not isinstance(hints, list) or len(hints) < HINT_RUNGS or not all(
        isinstance(h, str) and h.strip() for h in hints
    ):
        raise CourseError(f"{where}: `hints` must be a ladder of at least {HINT_RUNGS} texts")
    tests = record["tests"]
    if not tests or not all(isinstance(t, str) and "::" in t for t in tests):
        raise CourseError(f"{where}: `tests` must be pytest node ids, tests/test_x.py::test_name")
    minutes = record["minutes"]
    if not isinstance(minutes, int) or minutes <= 0:
        raise CourseError(f"{where}: `minutes` must be a whole number of minutes")
    return Exercise(str(record["id"]), str(record["task"]), tuple(hints), tuple(tests), minutes)
