"""The practice-copy proof, shared by the two halves of the suite (they run in parallel).

For every step: on the practice copy every earlier test passes and at least one of this
step's tests fails with the stub's NotImplementedError; `check` reports every exercise as
failing, with the test ids that fail; and once the checkpoint's own code is copied over the
copy, `check` reports every exercise as passing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_course.manifest import load_manifest
from pi_course.paths import PACKAGES, Layout, find_layout
from pi_course.practice import check_practice, make_practice, run_tests
from pi_course.render import source_tests, step_range

LAYOUT: Layout = find_layout(Path(__file__))
MANIFEST = load_manifest(LAYOUT.manifest)
FIRST_STEP = {rel: step_range(text, rel)[0] for rel, text in source_tests(LAYOUT).items()}
STEPS = [s.id for s in MANIFEST.steps]
# The eval driver's contract test runs the agent of whichever checkpoint it sits in, so on a
# practice copy it meets that step's stub like any run would; it proves the driver, not the
# earlier step, and is left out of "every earlier test passes".
DRIVES_THE_CURRENT_STEP = {"tests/test_eval_driver.py"}


def prove_practice_copy(step: int, tmp_path: Path) -> Path:
    copy = tmp_path / f"p{step:02d}"
    make_practice(LAYOUT, MANIFEST, step, copy)
    outcomes = run_tests(copy)
    earlier = [o for o in outcomes
               if FIRST_STEP[o.module] < step and o.module not in DRIVES_THE_CURRENT_STEP]
    current = [o for o in outcomes if FIRST_STEP[o.module] == step]
    assert all(o.passed for o in earlier), [o.node for o in earlier if not o.passed]
    stub_failures = [o for o in current if not o.passed and f"exercise {step:02d}-" in o.message]
    assert stub_failures, "at least one test of this step must fail with the stub's error"
    results = check_practice(LAYOUT, MANIFEST, step, copy)
    assert [r.id for r in results] == [e.id for e in MANIFEST.step(step).exercises]
    for result in results:
        assert not result.passed and result.failing, result
        assert result.message, result
    return copy


def prove_the_checkpoint_code_passes(step: int, copy: Path) -> None:
    solve_with_checkpoint_code(step, copy)
    results = check_practice(LAYOUT, MANIFEST, step, copy)
    assert all(r.passed for r in results), [(r.id, r.failing, r.message) for r in results
                                            if not r.passed]


def solve_with_checkpoint_code(step: int, copy: Path) -> None:
    folder = LAYOUT.checkpoints / MANIFEST.step(step).folder
    for package in PACKAGES:  # the agent, `pi/` (from step 01), and the course's `course/`
        if (folder / package).is_dir():
            shutil.rmtree(copy / package)
            shutil.copytree(folder / package, copy / package)
