"""`pi-course eval`: run the course's eval suite against checkpoints or a practice copy.

The harness is course code that a learner builds in step 14, so the tooling does not carry its
own copy: it runs the harness of the latest checkpoint that has one (`checkpoints/14_evals`, or,
until that is generated, the marked source in `shared/source`) as `python -m course evals run`,
with that folder as the working directory, and hands it the folders to measure. The harness's
exit code is passed on unchanged: 0 all passed (or nothing regressed against `--baseline`),
1 something did not, 2 bad input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from pi_course.paths import CourseError, Layout

HARNESS = Path("course") / "evals_cli.py"
FIRST_WITH_DRIVER = 6


def harness_folder(layout: Layout) -> Path:
    """The newest folder whose `course` has the eval harness; one clear line if there is none."""
    folders = sorted(layout.checkpoints.glob("[0-9][0-9]_*"), reverse=True)
    for folder in [*folders, layout.source]:
        if (folder / HARNESS).is_file():
            return folder
    raise CourseError("no eval harness in this checkout yet: it arrives with step 14 (evals), "
                      "in shared/source/course/evals_cli.py")


def target_arguments(layout: Layout, checkpoint: str | None, matrix: bool,
                     practice: Path | None) -> list[str]:
    """What to measure, as harness options: the matrix, a practice copy, or one checkpoint."""
    from pi_course.manifest import load_manifest

    if sum([matrix, practice is not None, checkpoint is not None]) > 1:
        raise CourseError("choose one of: a step number, --matrix, or --practice FOLDER")
    if matrix:
        return ["--checkpoints", str(layout.checkpoints)]
    if practice is not None:
        if not practice.is_dir():
            raise CourseError(f"{practice}: no such practice folder")
        return ["--target", str(practice.resolve())]
    steps = load_manifest(layout.manifest).steps
    if checkpoint is not None and not checkpoint.isdigit():
        raise CourseError(f"not a step number: {checkpoint!r} (use e.g. 8 or 08)")
    chosen = [s for s in steps if checkpoint is None or s.id == int(checkpoint)]
    if not chosen or chosen[-1].id < FIRST_WITH_DRIVER:
        raise CourseError(f"step {checkpoint} has no eval driver (steps 06 on have one)")
    folder = layout.checkpoints / chosen[-1].folder
    if not folder.is_dir():
        raise CourseError(f"checkpoints/{folder.name} is missing: run `pi-course generate`")
    return ["--target", str(folder)]


def optional(name: str, value: object | None) -> list[str]:
    if value is None:
        return []
    return [name, str(value.resolve() if isinstance(value, Path) else value)]


def eval_command(
    checkpoint: Annotated[str | None, typer.Argument(
        help="Step to measure, e.g. 08 (default: the last step).", show_default=False)] = None,
    matrix: Annotated[bool, typer.Option(
        "--matrix", help="Every case on every checkpoint it applies to.")] = False,
    practice: Annotated[Path | None, typer.Option(help="Measure this practice copy.")] = None,
    suite: Annotated[Path | None, typer.Option(help="Case folder (default: evals/cases).")] = None,
    report: Annotated[Path | None, typer.Option(help="Write the JSON report here.")] = None,
    baseline: Annotated[Path | None, typer.Option(help="Fail on regressions against it.")] = None,
    write_baseline: Annotated[Path | None, typer.Option(
        help="Write this run's report as the new baseline.")] = None,
    model: Annotated[str | None, typer.Option(help="A real model, provider/id.")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Runs per cell (pass@k).")] = 1,
    mutants: Annotated[bool, typer.Option(
        "--mutants", help="Plant the catalog's bugs in the latest checkpoint; all must be "
        "caught (evals/mutants/catalog.yaml).")] = False,
    mutant: Annotated[list[str] | None, typer.Option(
        help="With --mutants: only this mutant id (repeatable).")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Runs at once.")] = 2,
) -> None:
    """Run the eval suite with the latest harness; its exit code is passed on."""
    from pi_course.paths import find_layout

    layout = find_layout()
    harness = harness_folder(layout)
    if mutants:
        raise typer.Exit(mutants_command(layout, harness, mutant or [], jobs))
    cases = (suite or layout.root / "evals" / "cases").resolve()
    command = [sys.executable, "-m", "course", "evals", "run", "--suite", str(cases),
               *target_arguments(layout, checkpoint, matrix, practice),
               *optional("--report", report),
               *optional("--baseline", baseline), *optional("--write-baseline", write_baseline),
               *optional("--model", model), "--repeats", str(repeats), "--jobs", str(jobs)]
    sys.stdout.flush()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    raise typer.Exit(subprocess.run(command, cwd=harness, env=env, check=False).returncode)


def mutants_command(layout: Layout, harness: Path, only: list[str], jobs: int) -> int:
    """Judge the catalog's mutants on the latest checkpoint; print the kill table."""
    from rich.console import Console
    from rich.table import Table

    from pi_course.eval_mutants import SUITES, load_catalog, run_mutants, verdict_line

    catalog = load_catalog(layout.root / "evals" / "mutants" / "catalog.yaml")
    unknown = sorted(set(only) - {m.id for m in catalog})
    if unknown:
        raise CourseError(f"--mutant {unknown[0]}: not in evals/mutants/catalog.yaml")
    chosen = [m for m in catalog if not only or m.id in only]
    checkpoint = harness if harness != layout.source else latest_checkpoint(layout)
    step = int(checkpoint.name[:2])
    verdicts = run_mutants(layout, harness, checkpoint, step, chosen, jobs, parallel=2)
    table = Table(title=f"mutants of checkpoints/{checkpoint.name}", title_justify="left")
    for column in ("mutant", "layers", *SUITES, "verdict"):
        table.add_column(column)
    for verdict in verdicts:
        cells = [", ".join(verdict.killers.get(s, ())) or "-" for s in SUITES]
        table.add_row(verdict.mutant.id, ", ".join(verdict.mutant.layers), *cells,
                      verdict_line(verdict))
    console = Console(highlight=False, soft_wrap=True, width=200)
    console.print(table)
    bad = [v.mutant.id for v in verdicts if not v.ok]
    console.print(f"{len(verdicts) - len(bad)} of {len(verdicts)} mutants killed"
                  + (f"; not caught: {', '.join(bad)}" if bad else ""), markup=False)
    return 1 if bad else 0


def latest_checkpoint(layout: Layout) -> Path:
    folders = sorted(layout.checkpoints.glob("[0-9][0-9]_*"))
    if not folders:
        raise CourseError("no checkpoints: run `pi-course generate`")
    return folders[-1]
