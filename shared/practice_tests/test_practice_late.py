"""Practice copies of the second half of the steps are real exercises (see proof.py)."""

from pathlib import Path

import pytest
from proof import STEPS, prove_practice_copy, prove_the_checkpoint_code_passes

LATE = STEPS[len(STEPS) // 2 :]


@pytest.mark.parametrize("step", LATE)
def test_every_exercise_fails_on_the_copy_and_passes_with_the_checkpoint_code(
    step: int, tmp_path: Path
) -> None:
    copy = prove_practice_copy(step, tmp_path)
    prove_the_checkpoint_code_passes(step, copy)
