"""The matrix: every case on every checkpoint from its `first_checkpoint` on, `repeats` times.

With a real model runs differ, so a cell reports pass@k: the chance that one of k runs passes,
estimated without bias from n runs with c passes, 1 - C(n-c, k) / C(n, k).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import comb
from pathlib import Path

from course.evals.cases import Case
from course.evals.outcomes import Outcome
from course.evals.phases import Settings, Target, run_case

FOLDER = re.compile(r"^(\d{2})_[a-z0-9-]+$")
PRACTICE_MARKER = ".pi-course-practice"
FIRST_WITH_DRIVER = 6


class TargetError(ValueError):
    """A folder that cannot be measured; one line naming it."""


@dataclass(frozen=True)
class Result:
    """Every run of one case on one checkpoint."""

    case: Case
    target: Target
    runs: tuple[Outcome, ...]

    @property
    def passes(self) -> int:
        return sum(1 for run in self.runs if run.status == "passed")

    @property
    def outcome(self) -> Outcome:
        """The first run that did not pass, else the first run: a cell passes only if all do."""
        return next((run for run in self.runs if run.status != "passed"), self.runs[0])


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator over n runs with c passes (k ≤ n)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def checkpoint_step(folder: Path) -> int:
    """The step a folder holds: `NN_slug` by name, or a practice copy's marker file."""
    if match := FOLDER.match(folder.name):
        return int(match[1])
    marker = folder / PRACTICE_MARKER
    if marker.is_file():
        for line in marker.read_text(encoding="utf-8").splitlines():
            if line.startswith("step = ") and line[7:].strip().isdigit():
                return int(line[7:])
    raise TargetError(f"{folder}: not a checkpoint (NN_slug) or a practice copy")


def target(folder: Path) -> Target:
    """A folder to measure; it must carry an eval driver (steps 06 on)."""
    step = checkpoint_step(folder)
    if step < FIRST_WITH_DRIVER or not (folder / "course" / "eval_driver.py").is_file():
        raise TargetError(f"{folder}: no eval driver (course/eval_driver.py, from step 06 on)")
    return Target(folder, step)


def targets_in(checkpoints: Path) -> list[Target]:
    """Every checkpoint from step 06 on in a checkpoints folder, in step order."""
    if not checkpoints.is_dir():
        raise TargetError(f"{checkpoints}: no such checkpoints folder")
    folders = [f for f in sorted(checkpoints.iterdir()) if f.is_dir() and FOLDER.match(f.name)]
    return [target(f) for f in folders if checkpoint_step(f) >= FIRST_WITH_DRIVER]


def plan(cases: Sequence[Case], targets: Sequence[Target]) -> list[tuple[Case, Target]]:
    """Each case with each target it applies to; two targets of one step are refused."""
    steps = [t.step for t in targets]
    if len(set(steps)) != len(steps):
        raise TargetError("two targets hold the same step; measure them in separate runs")
    return [(case, t) for case in cases for t in targets if case.spec.first_checkpoint <= t.step]


def run_matrix(pairs: Sequence[tuple[Case, Target]], settings: Settings, repeats: int,
               jobs: int, on_run: Callable[[Outcome], None]) -> list[Result]:
    """Run every pair `repeats` times, `jobs` at once; results in the order of `pairs`."""

    def one(case: Case, where: Target) -> Outcome:
        outcome = run_case(case, where, settings)
        on_run(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [[pool.submit(one, case, where) for _ in range(repeats)]
                   for case, where in pairs]
        return [Result(case, where, tuple(f.result() for f in runs))
                for (case, where), runs in zip(pairs, futures, strict=True)]
