"""Lesson and provided code: what a learner reads in full at each step, and what they may skim.

Every file under `pi/` or `course/` that a step adds or changes is either **lesson** (the step
teaches it; the chapter walks through it and the exercises sit in it) or **provided** (support
the learner uses: facades, command-line wiring, renderers, data types, course plumbing). The
manifest says which is which; this module counts the lines each side changes and checks the
budgets that keep a step learnable in one sitting.

Lines are counted the way `git diff --stat` counts them: every added plus every removed line of
the file's diff against the previous checkpoint, blank lines included.
"""

from __future__ import annotations

import difflib
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pi_course.manifest import Manifest, Step
from pi_course.markers import exercises_in
from pi_course.paths import CODE, PACKAGES, Layout

LESSON_BUDGET = 400
LESSON_MEDIAN_BUDGET = 250
PROVIDED_FROM_STEP = 4          # from this step on, provided code is at most half a step
PROVIDED_TOTAL_BUDGET = 3000    # provided lines over all steps


class Report(Protocol):
    problems: list[str]
    warnings: list[str]


@dataclass(frozen=True)
class StepLines:
    """Changed lines of one step, split the way a learner meets them."""

    step: int
    lesson: dict[str, int]
    provided: dict[str, int]
    unlisted: dict[str, int]
    tests: int

    @property
    def lesson_total(self) -> int:
        return sum(self.lesson.values())

    @property
    def provided_total(self) -> int:
        return sum(self.provided.values())

    @property
    def provided_course(self) -> int:
        """Provided lines that are course plumbing (`course/`), not the agent (`pi/`)."""
        return sum(n for rel, n in self.provided.items() if rel.startswith("course/"))


def folder_texts(folder: Path) -> dict[str, str]:
    """The Python files of a committed checkpoint under `pi/`, `course/` and `tests/`."""
    texts: dict[str, str] = {}
    for top in (*PACKAGES, "tests"):
        for path in sorted((folder / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                texts[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
    return texts


def changed_lines(before: str, after: str) -> int:
    """Added plus removed lines between two versions of one file."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


def file_changes(before: dict[str, str], after: dict[str, str]) -> dict[str, int]:
    """Changed lines for every file that differs (a file removed counts all its lines)."""
    changes: dict[str, int] = {}
    for rel in sorted(set(before) | set(after)):
        if before.get(rel) != after.get(rel):
            changes[rel] = changed_lines(before.get(rel, ""), after.get(rel, ""))
    return changes


def step_lines(step: Step, changes: dict[str, int]) -> StepLines:
    code = {rel: n for rel, n in changes.items() if rel.startswith(CODE)}
    return StepLines(
        step=step.id,
        lesson={rel: code[rel] for rel in step.lesson if rel in code},
        provided={rel: code[rel] for rel in step.provided if rel in code},
        unlisted={rel: n for rel, n in code.items()
                  if rel not in step.lesson and rel not in step.provided},
        tests=sum(n for rel, n in changes.items() if rel.startswith("tests/")),
    )


def committed_lines(layout: Layout, manifest: Manifest) -> list[StepLines]:
    """Lesson, provided and test lines of every step, counted on the committed checkpoints."""
    rows: list[StepLines] = []
    before: dict[str, str] = {}
    for step in manifest.steps:
        after = folder_texts(layout.checkpoints / step.folder)
        rows.append(step_lines(step, file_changes(before, after)))
        before = after
    return rows


def exercise_files(layout: Layout, manifest: Manifest, step: Step) -> list[str]:
    """The source files that hold one of this step's exercises."""
    prefix = f"{step.id:02d}-"
    return [
        rel for rel in manifest.files_until(step.id)
        if any(e.startswith(prefix)
               for e in exercises_in((layout.source / rel).read_text(encoding="utf-8"), rel))
    ]


def check_lessons(layout: Layout, manifest: Manifest, report: Report) -> None:
    """Every changed file is lesson or provided, once; lessons stay within their budgets."""
    rows = committed_lines(layout, manifest)
    for step, row in zip(manifest.steps, rows, strict=True):
        where = f"manifest step {step.id:02d}"
        for rel in sorted(set(step.lesson) & set(step.provided)):
            report.problems.append(f"{where}: {rel} is both lesson and provided")
        for rel in sorted(row.unlisted):
            report.problems.append(f"{where}: {rel} changed but is neither lesson nor provided")
        listed = set(step.lesson) | set(step.provided)
        for rel in sorted(listed - set(row.lesson) - set(row.provided)):
            report.problems.append(f"{where}: {rel} is listed but does not change at this step")
        if not step.lesson:
            report.problems.append(f"{where}: no lesson file")
        for rel in exercise_files(layout, manifest, step):
            if rel not in step.lesson:
                report.problems.append(f"{where}: an exercise sits in {rel}, which is not lesson")
        if row.lesson_total > LESSON_BUDGET:
            report.problems.append(
                f"{where}: the lesson changes {row.lesson_total} lines "
                f"(budget {LESSON_BUDGET}): split the step or simplify"
            )
    for warning in provided_over_budget(rows):
        report.warnings.append(warning)
    median = statistics.median(row.lesson_total for row in rows) if rows else 0
    if median > LESSON_MEDIAN_BUDGET:
        report.problems.append(
            f"lessons: the median step changes {median:g} lines (budget {LESSON_MEDIAN_BUDGET})"
        )


def provided_over_budget(rows: list[StepLines]) -> list[str]:
    """Where provided code outweighs the lesson (from step 04 on) or the whole course's budget."""
    found = [
        f"step {row.step:02d}: provided {row.provided_total} lines > lesson {row.lesson_total}"
        for row in rows
        if row.step >= PROVIDED_FROM_STEP and row.provided_total > row.lesson_total
    ]
    total = sum(row.provided_total for row in rows)
    if total > PROVIDED_TOTAL_BUDGET:
        found.append(
            f"provided code: {total} lines over all steps (budget {PROVIDED_TOTAL_BUDGET})")
    return found
