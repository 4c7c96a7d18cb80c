"""Exercises as a learner meets them: the README section, the hint ladder, and no answer leaked.

The manifest holds each exercise's task, time estimate, hint ladder and test ids. The README
and the stub show only the first rung; `pi-course hint` climbs the rest of the ladder one rung
at a time and remembers in the practice folder how far the learner has climbed. A practice
copy must never contain the answer it asks for: `solution_leaks` finds any solution line in
its markdown or diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from pi_course.manifest import Exercise, Step
from pi_course.paths import CourseError

EXERCISES_PLACEHOLDER = "{{ exercises }}"
HINTS_FILE = ".pi-course-hints.json"
SHORTEST_TELLING_LINE = 12  # shorter lines (`return []`, `else:`) tell nothing about an answer


def exercises_section(step: Step) -> str:
    """The README's exercise section, rendered from the manifest (first hint rung only)."""
    nn = f"{step.id:02d}"
    total = sum(e.minutes for e in step.exercises)
    lines = [
        f"This step has {len(step.exercises)} exercises, about {total} minutes in all.",
        "",
        "```console",
        f"pi-course practice {nn} my-{nn}     # your copy, with the exercises stubbed out",
        f"pi-course check {nn} my-{nn}        # which exercises pass, judged by the course's tests",
        f"pi-course hint {nn} EXERCISE --dir my-{nn}   # the next hint, one rung at a time",
        "```",
    ]
    for exercise in step.exercises:
        lines += ["", f"**`{exercise.id}`** (about {exercise.minutes} min): {exercise.task}", "",
                  f"First hint: {exercise.hint}"]
    return "\n".join(lines)


def find_exercise(step: Step, exercise_id: str) -> Exercise:
    for exercise in step.exercises:
        if exercise.id == exercise_id:
            return exercise
    known = ", ".join(e.id for e in step.exercises)
    raise CourseError(f"step {step.id:02d} has no exercise {exercise_id} (it has: {known})")


def seen_levels(folder: Path | None) -> dict[str, int]:
    """How far up each ladder the learner of this practice folder has climbed."""
    if folder is None or not (folder / HINTS_FILE).is_file():
        return {}
    try:
        data = json.loads((folder / HINTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, int)}


def next_hint(exercise: Exercise, folder: Path | None, level: int | None) -> tuple[int, str]:
    """(rung, text): the asked-for rung, or the next one not yet seen; remembered in `folder`.
    The first rung counts as seen from the start: the README and the stub already show it."""
    seen = seen_levels(folder)
    rung = level if level is not None else min(seen.get(exercise.id, 1) + 1, len(exercise.hints))
    if not 1 <= rung <= len(exercise.hints):
        raise CourseError(f"{exercise.id} has hints 1 to {len(exercise.hints)}, not {rung}")
    if folder is not None:
        seen[exercise.id] = max(seen.get(exercise.id, 0), rung)
        (folder / HINTS_FILE).write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n",
                                         encoding="utf-8")
    return rung, exercise.hints[rung - 1]


def telling(line: str) -> str:
    return line.strip() if len(line.strip()) >= SHORTEST_TELLING_LINE else ""


def solution_lines(solved: dict[str, str], stubbed: dict[str, str]) -> set[str]:
    """Code lines the full checkpoint has and its practice copy has nowhere: the answers.

    A line the copy still holds somewhere (in other code, a test, the demo) gives nothing away.
    """
    kept = {telling(line) for rel, text in stubbed.items() if rel.endswith(".py")
            for line in text.splitlines()}
    answers: set[str] = set()
    for rel, text in solved.items():
        if rel.endswith(".py") and stubbed.get(rel) != text:
            answers |= {telling(line) for line in text.splitlines()}
    return answers - kept - {""}


def solution_leaks(answers: set[str], copy: dict[str, str]) -> list[str]:
    """`file:line` for every markdown or diff line of the copy that gives an answer away."""
    leaks: list[str] = []
    for rel, text in sorted(copy.items()):
        if not rel.endswith((".md", ".diff")):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            shown = line[1:] if rel.endswith(".diff") and line[:1] in "+- " else line
            if telling(shown) in answers:
                leaks.append(f"{rel}:{number}")
    return leaks
