"""Practice copies of the second half of the steps are real exercises (see proof.py)."""

from pathlib import Path

import pytest
from proof import STEPS, prove_practice_copy

LATE = STEPS[len(STEPS) // 2 :]


@pytest.mark.parametrize("step", LATE)
def test_practice_copy_fails_only_where_the_exercise_is(step: int, tmp_path: Path) -> None:
    prove_practice_copy(step, tmp_path)
