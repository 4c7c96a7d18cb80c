"""Lesson and provided code: every changed file is one of the two, and lessons stay small."""

import re
import shutil
import statistics
from pathlib import Path

import pytest

from pi_course.lessons import (
    LESSON_BUDGET,
    LESSON_MEDIAN_BUDGET,
    PROVIDED_TOTAL_BUDGET,
    Report,
    StepLines,
    check_lessons,
    committed_lines,
    provided_over_budget,
)
from pi_course.manifest import load_manifest
from pi_course.paths import Layout, find_layout

ROOT = find_layout(Path(__file__)).root


class Found:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.warnings: list[str] = []


def problems_of(layout: Layout) -> list[str]:
    report: Report = Found()
    check_lessons(layout, load_manifest(layout.manifest), report)
    return report.problems


@pytest.fixture
def course(tmp_path: Path) -> Layout:
    """The checkpoints, the manifest and the marked source, copied so a test may break them."""
    ignore = shutil.ignore_patterns("__pycache__", "demo.out", "*.md", "*.diff")
    for rel in ("checkpoints", "shared/source"):
        shutil.copytree(ROOT / rel, tmp_path / rel, ignore=ignore)
    return Layout(tmp_path)


def edit_manifest(layout: Layout, old: str, new: str) -> None:
    text = layout.manifest.read_text(encoding="utf-8")
    assert old in text
    layout.manifest.write_text(text.replace(old, new, 1), encoding="utf-8")


def grow(layout: Layout, folder: str, rel: str, lines: int) -> None:
    target = layout.checkpoints / folder / rel
    target.write_text(target.read_text() + "# more\n" * lines)


def test_the_committed_lessons_are_within_their_budgets() -> None:
    layout = Layout(ROOT)
    rows = committed_lines(layout, load_manifest(layout.manifest))
    assert len(rows) == 15
    assert max(r.lesson_total for r in rows) <= LESSON_BUDGET
    assert statistics.median(r.lesson_total for r in rows) <= LESSON_MEDIAN_BUDGET
    assert all(not r.unlisted for r in rows)
    assert problems_of(layout) == []


def test_a_lesson_that_grows_past_the_budget_fails_naming_the_step(course: Layout) -> None:
    grow(course, "04_provider", "pi/ai/providers/openai_wire.py", LESSON_BUDGET)
    problems = problems_of(course)
    assert any(p.startswith("manifest step 04: the lesson changes") for p in problems), problems
    # The next step now removes those lines again, but removed lines are provided code there.
    assert not any("manifest step 05: the lesson" in p for p in problems)


def test_growing_provided_code_breaks_no_budget(course: Layout) -> None:
    grow(course, "04_provider", "pi/ai/providers/http_exchange.py", LESSON_BUDGET)
    assert not any("lesson changes" in p for p in problems_of(course))


def step_of(step: int, lesson: int, provided: int) -> StepLines:
    return StepLines(step, {"pi/a.py": lesson}, {"pi/b.py": provided}, {}, 0)


def test_provided_code_past_the_lesson_is_named_from_step_04_and_past_the_total() -> None:
    rows = [step_of(3, 10, 50), step_of(4, 100, 100), step_of(5, 100, 101)]
    assert provided_over_budget(rows) == ["step 05: provided 101 lines > lesson 100"]
    rows.append(step_of(6, PROVIDED_TOTAL_BUDGET, PROVIDED_TOTAL_BUDGET))
    assert provided_over_budget(rows)[-1] == (
        f"provided code: {PROVIDED_TOTAL_BUDGET + 251} lines over all steps "
        f"(budget {PROVIDED_TOTAL_BUDGET})")


def test_a_changed_file_on_neither_list_is_named(course: Layout) -> None:
    edit_manifest(course, '    "pi/ai/providers/http_exchange.py",\n', "")
    assert ("manifest step 04: pi/ai/providers/http_exchange.py changed but is neither lesson "
            "nor provided") in problems_of(course)


def test_a_file_on_both_lists_is_named(course: Layout) -> None:
    edit_manifest(course, 'lesson = [\n    "course/trace.py",\n',
                  'lesson = [\n    "course/trace.py",\n    "course/cli.py",\n')
    assert "manifest step 00: course/cli.py is both lesson and provided" in problems_of(course)


def test_a_listed_file_the_step_does_not_change_is_named(course: Layout) -> None:
    edit_manifest(course, 'lesson = [\n    "course/trace.py",\n',
                  'lesson = [\n    "course/trace.py",\n    "pi/agent/loop.py",\n')
    assert ("manifest step 00: pi/agent/loop.py is listed but does not change at this step"
            in problems_of(course))


def test_an_exercise_outside_the_lesson_is_named(course: Layout) -> None:
    text = course.manifest.read_text(encoding="utf-8")
    moved = re.sub(r'(lesson = \[\n(?:    "[^"]+",\n)*?)    "pi/ai/providers/openai_wire.py",\n',
                   r"\1", text, count=1)
    moved = moved.replace('provided = [\n    "pi/ai/__init__.py",\n',
                          'provided = [\n    "pi/ai/__init__.py",\n'
                          '    "pi/ai/providers/openai_wire.py",\n', 1)
    assert moved != text
    course.manifest.write_text(moved, encoding="utf-8")
    assert ("manifest step 04: an exercise sits in pi/ai/providers/openai_wire.py, which is "
            "not lesson") in problems_of(course)


def test_a_median_lesson_past_its_budget_fails(course: Layout) -> None:
    manifest = load_manifest(course.manifest)
    for step in manifest.steps:
        grow(course, step.folder, step.lesson[0], 2 * LESSON_MEDIAN_BUDGET // 3)
    problems = problems_of(course)
    assert any(p.startswith("lessons: the median step changes") for p in problems), problems


def test_the_tutor_guide_gives_every_exercise_with_the_manifests_minutes() -> None:
    guide = (ROOT / "docs" / "tutor.md").read_text(encoding="utf-8")
    for step in load_manifest(ROOT / "checkpoints" / "manifest.toml").steps:
        for exercise in step.exercises:
            assert f"`{exercise.id}` ({exercise.minutes})" in guide, exercise.id
    for plan in ("three-hour workshop", "one-day workshop", "multi-week course"):
        assert plan in guide
