"""Each exercise on its own: the stub fails every test named for it, with its own error; a
plausible wrong answer fails with a message that points at the mistake (see learnable.py)."""

import pytest
from learnable import (
    EXERCISES,
    WRONG_ANSWERS,
    failures_of,
    load_wrong_answer,
    outcomes_with,
    stub_code,
)

from pi_course.manifest import Exercise

IDS = [exercise.id for _, exercise in EXERCISES]


@pytest.mark.parametrize(("step", "exercise"), EXERCISES, ids=IDS)
def test_the_stub_alone_fails_every_test_named_for_it_with_its_own_error(
    step: int, exercise: Exercise
) -> None:
    outcomes = outcomes_with(step, exercise, stub_code(exercise))
    failures = failures_of(exercise, outcomes)
    for test_id in exercise.tests:
        assert any(o.node.startswith(test_id) for o in failures), f"{test_id} passes on the stub"
    assert any(f"exercise {exercise.id}" in o.message for o in failures), \
        [o.message[:200] for o in failures]


@pytest.mark.parametrize(("step", "exercise"), EXERCISES, ids=IDS)
def test_a_plausible_wrong_answer_fails_with_a_message_that_points_at_the_mistake(
    step: int, exercise: Exercise
) -> None:
    path = WRONG_ANSWERS / f"{exercise.id}.py"
    assert path.is_file(), f"{exercise.id} needs a plausible wrong answer in {path.name}"
    wrong = load_wrong_answer(path)
    failures = failures_of(exercise, outcomes_with(step, exercise, wrong.code))
    assert failures, f"the wrong answer ({wrong.mistake}) passes every test of {exercise.id}"
    assert any(wrong.expect in o.message for o in failures), \
        (wrong.expect, [o.message[:300] for o in failures])
