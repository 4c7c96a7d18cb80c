"""A room at a glance: every learner's practice folder checked, as a table or an HTML page.

A workshop host points `pi-course progress` at the learners' folders (each made by
`pi-course practice`); each is judged like `pi-course check --json` would judge it, and the
results become one row per learner with a mark per exercise.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from pi_course.manifest import Manifest
from pi_course.paths import CourseError, Layout
from pi_course.practice import ExerciseResult, check_practice, practice_step


@dataclass(frozen=True)
class Learner:
    """One practice folder's verdicts, or the one line saying why it could not be checked."""

    folder: Path
    step: int | None
    results: list[ExerciseResult]
    problem: str = ""

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)


def check_room(layout: Layout, manifest: Manifest, folders: list[Path]) -> list[Learner]:
    learners: list[Learner] = []
    for folder in folders:
        try:
            step = practice_step(folder)
            learners.append(Learner(folder, step, check_practice(layout, manifest, step, folder)))
        except CourseError as error:
            learners.append(Learner(folder, None, [], str(error)))
    return learners


def room_html(learners: list[Learner]) -> str:
    """A self-contained page, large type, for a projector; every name escaped."""
    rows: list[str] = []
    for learner in learners:
        name = html.escape(learner.folder.name)
        if learner.problem:
            rows.append(f"<tr><td>{name}</td><td>–</td><td class='fail'>"
                        f"{html.escape(learner.problem)}</td></tr>")
            continue
        marks = " ".join(
            f"<span class='{'pass' if r.passed else 'fail'}' title='{html.escape(r.message)}'>"
            f"{'✓' if r.passed else '✗'} {html.escape(r.id)}</span>"
            for r in learner.results
        )
        rows.append(f"<tr><td>{name}</td><td>{learner.step:02d}</td><td>{marks} "
                    f"({learner.passed}/{len(learner.results)})</td></tr>")
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>pi-course progress</title>"
        "<style>body{font:20px system-ui;margin:2em}td{padding:.3em 1em}"
        ".pass{color:#15803d}.fail{color:#b91c1c}span{margin-right:1em}</style></head><body>"
        "<h1>pi-course progress</h1><table><tr><th>learner</th><th>step</th><th>exercises</th>"
        f"</tr>{''.join(rows)}</table></body></html>\n"
    )
