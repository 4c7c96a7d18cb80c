"""`python -m course evals run`: measure checkpoints with a suite of eval cases.

Exit codes: 0 every cell passed (with `--baseline`: nothing regressed), 1 otherwise, 2 bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress

from course import fail
from course.evals.cases import Case, CaseError, load_suite
from course.evals.matrix import Result, TargetError, plan, run_matrix, target, targets_in
from course.evals.phases import Settings, Target
from course.evals.report import BaselineError, compare, load_baseline, matrix_table
from course.evals.report import report_data, write_report


evals_app = typer.Typer(no_args_is_help=True, add_completion=False)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
Folders = Annotated[list[Path] | None, typer.Option(
    "--target", help="a checkpoint or practice folder to measure (repeatable)")]


@evals_app.callback()
def evals() -> None:
    """Measure checkpoints with eval cases (step 14): `run` is the one command."""


def chosen_targets(folders: list[Path], checkpoints: Path | None) -> list[Target]:
    found = targets_in(checkpoints.resolve()) if checkpoints else []
    found += [target(folder.resolve()) for folder in folders]
    if not found:
        raise TargetError("nothing to measure: give --target FOLDER or --checkpoints FOLDER")
    return sorted(found, key=lambda t: t.step)


def chosen_cases(cases: list[Case], ids: list[str]) -> list[Case]:
    unknown = sorted(set(ids) - {c.id for c in cases})
    if unknown:
        raise CaseError(f"--case {unknown[0]}: no case with that id in the suite")
    return [c for c in cases if not ids or c.id in ids]


def run_with_progress(pairs: list[tuple[Case, Target]], settings: Settings, repeats: int,
                      jobs: int) -> list[Result]:
    with Progress(console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("evals", total=len(pairs) * repeats)
        return run_matrix(pairs, settings, repeats, jobs,
                          on_run=lambda outcome: progress.advance(task))


def explain(results: list[Result]) -> None:
    """One line per cell that did not pass, with the reason (kept out of the reports)."""
    for result in results:
        outcome = result.outcome
        if outcome.status == "passed":
            continue
        why = "; ".join(f"{c.name}: {c.detail}" for c in outcome.checks if not c.passed)
        if outcome.reason:
            why = f"{why}; {outcome.reason}" if why else outcome.reason
        exercise = f" [exercise {outcome.exercise}]" if outcome.exercise else ""
        out.print(f"{result.case.id} @ {result.target.label}: {outcome.status} "
                  f"({outcome.phase}/{outcome.code}){exercise} {why}".rstrip(), markup=False)


@evals_app.command("run")
def run(
    suite: Annotated[Path, typer.Option(help="folder of eval cases (*.yaml)")],
    targets: Folders = None,
    checkpoints: Annotated[Path | None, typer.Option(
        help="measure every checkpoint from step 06 on in this folder (the matrix)")] = None,
    case: Annotated[list[str] | None, typer.Option(help="only these case ids")] = None,
    report: Annotated[Path | None, typer.Option(help="write the JSON report here")] = None,
    baseline: Annotated[Path | None, typer.Option(help="fail on regressions against it")] = None,
    write_baseline: Annotated[Path | None, typer.Option(
        help="write this run's report as the new baseline")] = None,
    model: Annotated[str | None, typer.Option(help="a real model, provider/id")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="runs per cell (pass@k)")] = 1,
    jobs: Annotated[int, typer.Option(min=1, help="runs at once")] = 4,
    timeout: Annotated[float, typer.Option(help="seconds per driver run")] = 120.0,
) -> None:
    """Run every case on every target it applies to, then report."""
    try:
        cases = chosen_cases(load_suite(suite.resolve()), case or [])
        chosen = chosen_targets(targets or [], checkpoints)
        previous = load_baseline(baseline) if baseline else None
        pairs = plan(cases, chosen)
    except (CaseError, TargetError, BaselineError) as error:
        raise fail(str(error)) from None
    results = run_with_progress(pairs, Settings(timeout=timeout, model=model), repeats, jobs)
    data = report_data(results, chosen, suite.resolve(), model or "mock", repeats)
    out.print(matrix_table(data))
    explain(results)
    for file in (report, write_baseline):
        if file is not None:
            write_report(data, file)
    failed = sum(1 for r in results if r.outcome.status != "passed")
    out.print(f"{len(results) - failed} passed, {failed} not passed", markup=False)
    if previous is not None:
        changes = compare(data, previous)
        for line in changes:
            out.print(line, markup=False)
        raise typer.Exit(1 if any(line.startswith("regression") for line in changes) else 0)
    raise typer.Exit(0 if failed == 0 else 1)
