"""`python -m course evals run`: measure checkpoints with a suite of eval cases.

The harness runs in this checkpoint's process; the code it measures runs in the target
folders, through their eval drivers. Exit codes: 0 when every cell passed (with `--baseline`:
when nothing regressed), 1 otherwise, 2 for bad input (a broken case file, a folder that is
not a checkpoint), always with one line saying what and where.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from pi.ai.bounded import TooLarge, read_file, read_json
from course.evals import (
    BaselineError,
    Case,
    CaseError,
    Result,
    Settings,
    Target,
    TargetError,
    compare,
    load_baseline,
    load_suite,
    matrix_table,
    plan,
    report_data,
    run_matrix,
    target,
    targets_in,
    write_html,
    write_report,
)
from course.evals.fresh import fresh_case
from course.evals.report import MergeError, merge_reports

evals_app = typer.Typer(no_args_is_help=True, add_completion=False)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)
Folders = Annotated[list[Path] | None, typer.Option(
    "--target", help="a checkpoint or practice folder to measure (repeatable)")]


@evals_app.callback()
def evals() -> None:
    """Measure checkpoints with eval cases (step 14): `run` is the one command."""


def fail(text: str) -> typer.Exit:
    err.print(f"[red]error:[/red] {escape(text)}")
    return typer.Exit(2)


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
    html: Annotated[Path | None, typer.Option(help="write the HTML report here")] = None,
    baseline: Annotated[Path | None, typer.Option(help="fail on regressions against it")] = None,
    write_baseline: Annotated[Path | None, typer.Option(
        help="write this run's report as the new baseline")] = None,
    model: Annotated[str | None, typer.Option(help="a real model, provider/id")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="runs per cell (pass@k)")] = 1,
    jobs: Annotated[int, typer.Option(min=1, help="runs at once")] = 4,
    timeout: Annotated[float, typer.Option(help="seconds per driver run")] = 120.0,
    fresh: Annotated[int | None, typer.Option(
        help="with --model: new variants of the fixtures, the same for the same seed")] = None,
    shard: Annotated[str | None, typer.Option(
        help="I/N: run only the I-th of N equal parts of the cells (for a CI matrix)")] = None,
) -> None:
    """Run every case on every target it applies to, then report."""
    if fresh is not None and model is None:
        raise fail("--fresh needs --model: the MockModel scripts are written for the "
                   "original fixtures")
    try:
        part = shard_of(shard)
        cases = chosen_cases(load_suite(suite.resolve()), case or [])
        chosen = chosen_targets(targets or [], checkpoints)
        previous = load_baseline(baseline) if baseline else None
    except (CaseError, TargetError, BaselineError) as error:
        raise fail(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="pi-eval-fresh-") as variants:
        try:
            if fresh is not None:
                cases = [fresh_case(c, fresh, Path(variants)) for c in cases]
            pairs = plan(cases, chosen)
        except (CaseError, TargetError) as error:
            raise fail(str(error)) from None
        if part is not None:
            pairs = [pair for index, pair in enumerate(pairs) if index % part[1] == part[0] - 1]
        results = run_with_progress(pairs, Settings(timeout=timeout, model=model), repeats,
                                    jobs)
    data = report_data(results, chosen, suite.resolve(), model or "mock", repeats, fresh, shard)
    out.print(matrix_table(data))
    explain(results)
    for file in (report, write_baseline):
        if file is not None:
            write_report(data, file)
    if html is not None:
        write_html(data, results, html)
    failed = sum(1 for r in results if r.outcome.status != "passed")
    out.print(f"{len(results) - failed} passed, {failed} not passed", markup=False)
    if previous is not None:
        comparison = compare(data, previous)
        for line in comparison.lines():
            out.print(line, markup=False)
        raise typer.Exit(0 if comparison.ok else 1)
    raise typer.Exit(0 if failed == 0 else 1)


def shard_of(text: str | None) -> tuple[int, int] | None:
    """`I/N` as (I, N), 1 <= I <= N; TargetError (one line) for anything else."""
    if text is None:
        return None
    found = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not found or not 1 <= int(found[1]) <= int(found[2]):
        raise TargetError(f"--shard {text}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(found[1]), int(found[2])


def read_report(file: Path) -> dict[str, Any]:
    try:
        data = read_json(read_file(file))
    except OSError as error:
        raise MergeError(f"{file}: {error.strerror}") from None
    except TooLarge as error:
        raise MergeError(f"{file}: {error}") from None
    except json.JSONDecodeError as error:
        raise MergeError(f"{file}:{error.lineno}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise MergeError(f"{file}: not an eval report")
    return data


@evals_app.command("merge")
def merge(
    reports: Annotated[list[Path], typer.Argument(help="the shards' JSON reports")],
    report: Annotated[Path | None, typer.Option(help="write the joined JSON report here")] = None,
    html: Annotated[Path | None, typer.Option(help="write the joined HTML report here")] = None,
) -> None:
    """Join the reports of a sharded run (`--shard I/N`) into one; exit 1 if a cell failed."""
    try:
        data = merge_reports([(file.name, read_report(file)) for file in reports])
    except MergeError as error:
        raise fail(str(error)) from None
    out.print(matrix_table(data))
    if report is not None:
        write_report(data, report)
    if html is not None:
        write_html(data, [], html)
    failed = sum(1 for entry in data["results"] if entry["outcome"] != "passed")
    out.print(f"{len(data['results']) - failed} passed, {failed} not passed", markup=False)
    raise typer.Exit(0 if failed == 0 else 1)
