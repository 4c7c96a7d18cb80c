"""Every exercise is learnable: its stub fails its tests with its own named error, and a
plausible wrong answer (kept in `wrong_answers/ID.py`) fails with a message that points at the
mistake. That the checkpoint's own code passes is proven per step in proof.py.

A wrong answer file starts with two comment lines, then the code that takes the solution's
place (indented as if it stood at the left margin):

    # mistake: records the results as they finish instead of in call order
    # expect: c1
    <code>

`expect` is a piece of text the failing tests' messages must contain, so the learner who makes
that mistake is shown something that leads to it.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from pi_course.manifest import Exercise, load_manifest
from pi_course.paths import CourseError, Layout, find_layout
from pi_course.practice import Outcome, covers, pristine_run_folder, run_tests
from pi_course.render import code_files

LAYOUT: Layout = find_layout(Path(__file__))
MANIFEST = load_manifest(LAYOUT.manifest)
WRONG_ANSWERS = Path(__file__).parent / "wrong_answers"
EXERCISES = [(step.id, exercise) for step in MANIFEST.steps for exercise in step.exercises]


@dataclass(frozen=True)
class WrongAnswer:
    exercise: str
    mistake: str
    expect: str
    code: str


def load_wrong_answer(path: Path) -> WrongAnswer:
    lines = path.read_text(encoding="utf-8").splitlines()
    header: dict[str, str] = {}
    while lines and lines[0].startswith("# ") and ":" in lines[0]:
        key, _, value = lines.pop(0)[2:].partition(":")
        header[key.strip()] = value.strip()
    if not header.get("mistake") or not header.get("expect"):
        raise CourseError(f"{path}: must start with `# mistake: …` and `# expect: …` lines")
    return WrongAnswer(path.stem, header["mistake"], header["expect"], "\n".join(lines))


def outcomes_with(step: int, exercise: Exercise, code: str) -> list[Outcome]:
    """The exercise's tests, run on the step's code with `code` in the exercise's place."""
    files = code_files(LAYOUT, MANIFEST, step, answers={exercise.id: code})
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(scratch) / "run"
        pristine_run_folder(LAYOUT, MANIFEST, step, None, run, files)
        return run_tests(run, list(exercise.tests))


def failures_of(exercise: Exercise, outcomes: list[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if not o.passed and any(covers(t, o.node) for t in exercise.tests)]


def stub_code(exercise: Exercise) -> str:
    return f"raise NotImplementedError({f'exercise {exercise.id}: {exercise.hint}'!r})"
