"""Practice copies of the first half of the steps are real exercises (see proof.py)."""

from pathlib import Path

import pytest
from proof import LAYOUT, MANIFEST, STEPS, prove_practice_copy, solve_with_checkpoint_code

from pi_course.practice import check_practice

EARLY = STEPS[: len(STEPS) // 2]


@pytest.mark.parametrize("step", EARLY)
def test_practice_copy_fails_only_where_the_exercise_is(step: int, tmp_path: Path) -> None:
    prove_practice_copy(step, tmp_path)


def test_copying_the_checkpoint_code_over_practice_02_makes_its_exercises_pass(
    tmp_path: Path,
) -> None:
    copy = prove_practice_copy(2, tmp_path)
    solve_with_checkpoint_code(2, copy)
    assert all(r.passed for r in check_practice(LAYOUT, MANIFEST, 2, copy))
