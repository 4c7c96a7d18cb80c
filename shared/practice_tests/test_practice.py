"""Practice copies are real exercises: for every step, the stub is what fails, and only it.

This is the proof CI runs for each step: on the practice copy every earlier test passes and at
least one of this step's tests fails with the stub's NotImplementedError; with the
checkpoint's code copied back in, every exercise passes.
"""

import shutil
from pathlib import Path

import pytest

from pi_course.manifest import load_manifest
from pi_course.paths import CourseError, Layout, find_layout
from pi_course.practice import check_practice, make_practice, run_tests
from pi_course.render import source_tests, step_range

LAYOUT: Layout = find_layout(Path(__file__))
MANIFEST = load_manifest(LAYOUT.manifest)
FIRST_STEP = {rel: step_range(text, rel)[0] for rel, text in source_tests(LAYOUT).items()}


@pytest.mark.parametrize("step", [s.id for s in MANIFEST.steps])
def test_practice_copy_fails_only_where_the_exercise_is(step: int, tmp_path: Path) -> None:
    copy = tmp_path / f"p{step:02d}"
    make_practice(LAYOUT, MANIFEST, step, copy)
    outcomes = run_tests(copy)
    earlier = [o for o in outcomes if FIRST_STEP[o.module] < step]
    current = [o for o in outcomes if FIRST_STEP[o.module] == step]
    assert all(o.passed for o in earlier), [o.node for o in earlier if not o.passed]
    stub_failures = [o for o in current if not o.passed and f"exercise {step:02d}-" in o.message]
    assert stub_failures, "at least one test of this step must fail with the stub's error"
    results = check_practice(LAYOUT, MANIFEST, step, copy)
    assert results and not any(r.passed for r in results)

    folder = LAYOUT.checkpoints / MANIFEST.step(step).folder
    shutil.rmtree(copy / "pi")
    shutil.copytree(folder / "pi", copy / "pi")
    assert all(r.passed for r in check_practice(LAYOUT, MANIFEST, step, copy))


def test_practice_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("my work")
    with pytest.raises(CourseError, match="already exists"):
        make_practice(LAYOUT, MANIFEST, 2, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "my work"


def test_check_refuses_a_folder_that_is_not_a_practice_copy(tmp_path: Path) -> None:
    with pytest.raises(CourseError, match="not a practice copy"):
        check_practice(LAYOUT, MANIFEST, 2, tmp_path)


def test_a_practice_copy_carries_what_its_tests_need(tmp_path: Path) -> None:
    make_practice(LAYOUT, MANIFEST, 1, tmp_path / "p01")
    for needed in ("mock_model/__init__.py", "data/pi-reference/sessions",
                   "protocol/pi-ai.schema.json", "conftest.py", "README.md"):
        assert (tmp_path / "p01" / needed).exists(), needed
