"""The `pi-course` command line: browse, run, test, generate and practise the checkpoints.

Heavy modules (the generator, the verifier, the runner) are imported inside the commands that
need them, so `pi-course --help` answers at once.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pi_course.paths import CourseError, course_command

if TYPE_CHECKING:
    from pi_course.manifest import Manifest
    from pi_course.paths import Layout

P = ParamSpec("P")
R = TypeVar("R")
HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
NN = Annotated[str, typer.Argument(help="Step number, e.g. 2 or 02.", show_default=False)]
Folder = Annotated[Path, typer.Argument(help="Your practice folder.", show_default=False)]
StepOrFolder = Annotated[str, typer.Argument(
    metavar="STEP|FOLDER", show_default=False,
    help="Step number (e.g. 2 or 02) before your folder, or your practice folder alone.")]
YourFolder = Annotated[Path | None, typer.Argument(
    metavar="FOLDER", help="Your practice folder, after the step number.", show_default=False)]
Latest = Annotated[str | None, typer.Argument(help="Step number (default: the last step).")]
PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
DEMO_ENV = {"PYTHONHASHSEED": "0", "COLUMNS": "100"}  # as generate.run_demo, for demo.out
LANGUAGES = ("en", "zh")
DIFF_STYLES = (("+++ ", "bold"), ("--- ", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))
WATCH_TIME_LIMIT = 10.0  # seconds; a step's exercise tests take 1 to 3 s on two busy cores
NUMERIC = {"exercises", "tests", "passed", "failed", "skipped", "seconds", "added", "removed"}

# The course tooling's own suites; the practice-copy proof is separate because it is slow.
TOOLING_SUITES = (
    "shared/tests",
    "shared/practice_tests/test_practice.py",
    "shared/practice_tests/test_practice_early.py",
    "shared/practice_tests/test_practice_late.py",
    "shared/practice_tests/test_exercises_learnable.py",
    "mock_model/tests",
)

app = typer.Typer(help="Rebuild the Pi coding agent in fifteen checkpoints.",
                  no_args_is_help=True, add_completion=False)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def show_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"pi-course {version('pi-course')}")
        raise typer.Exit(0)


@app.callback()
def options(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=show_version,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Rebuild the Pi coding agent in fifteen checkpoints."""


def command(
    name: str | None = None, context_settings: dict[str, Any] | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Register a command whose CourseError becomes one red line and exit code 2."""
    def register(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return func(*args, **kwargs)
            except CourseError as error:
                err.print(f"error: {error}", style="red", markup=False, soft_wrap=True)
                raise typer.Exit(2) from None
        app.command(name, context_settings=context_settings)(guarded)
        return func
    return register


def step_and_folder(step: str, dest: Path | None) -> tuple[int, Path]:
    """`STEP FOLDER`, or the folder alone: a practice copy knows the step it was made for."""
    from pi_course.practice import practice_step

    if dest is None and step.isdigit():
        raise CourseError(f"give your practice folder too, e.g. {step} my-{int(step):02d}")
    if dest is None:
        return practice_step(Path(step)), Path(step)
    return step_number(step), dest


def step_number(text: str) -> int:
    """'2' and '02' both name step 2; anything else is a typo the person can fix."""
    if not text.isdigit():
        raise CourseError(f"not a step number: {text!r} (use e.g. 2 or 02)")
    return int(text)


def course() -> tuple[Layout, Manifest]:
    from pi_course.manifest import load_manifest
    from pi_course.paths import find_layout

    layout = find_layout()
    return layout, load_manifest(layout.manifest)


def checkpoint(text: str | None) -> Path:
    """The generated folder of the named step (default: the last one); it must exist."""
    layout, manifest = course()
    if text is None and not manifest.steps:
        raise CourseError("the manifest has no steps yet")
    step = manifest.steps[-1] if text is None else manifest.step(step_number(text))
    folder = layout.checkpoints / step.folder
    if not folder.is_dir():
        raise CourseError(f"checkpoints/{step.folder} is missing: run `pi-course generate`")
    return folder


def closing_line(passed: int, failed: int, skipped: int = 0) -> str:
    """The last line of `pi-course test`: fixed wording, so scripts and docs can quote it."""
    line = f"{passed} passed, {failed} failed"
    return f"{line}, {skipped} skipped" if skipped else line


def diff_stat(text: str) -> list[tuple[str, int, int]]:
    """(file, added, removed) per file; hunk lengths are followed so `--- x` content is safe."""
    rows: list[tuple[str, int, int]] = []
    old = new = 0
    name = ""
    for line in text.splitlines():
        if old <= 0 and new <= 0:
            if line.startswith("--- "):
                name = line[4:].removeprefix("a/")
            elif line.startswith("+++ "):
                target = line[4:]
                rows.append((name if target == "/dev/null" else target.removeprefix("b/"), 0, 0))
            elif hunk := HUNK.match(line):
                old, new = int(hunk[1] or 1), int(hunk[2] or 1)
            continue
        file, added, removed = rows[-1]
        if line.startswith("-"):
            old, rows[-1] = old - 1, (file, added, removed + 1)
        elif line.startswith("+"):
            new, rows[-1] = new - 1, (file, added + 1, removed)
        elif not line.startswith("\\"):
            old, new = old - 1, new - 1
    return rows


def table(*columns: str, title: str | None = None) -> Table:
    grid = Table(title=title, title_justify="left")
    for column in columns:
        # fold, not "…": a test id cut short on an 80-column terminal cannot be copied
        grid.add_column(column, justify="right" if column in NUMERIC else "left", overflow="fold")
    return grid


def call(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run a child on our own stdin/stdout, so its bytes reach the terminal untouched."""
    sys.stdout.flush()
    child_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    raise typer.Exit(subprocess.run(command, cwd=cwd, env=child_env).returncode)


@command("list")
def list_steps() -> None:
    """Show every step of the course."""
    grid = table("NN", "slug", "title", "concepts", "exercises", "tests")
    for s in course()[1].steps:
        row = (s.slug, s.title, ", ".join(s.concepts), str(len(s.exercises)), str(len(s.tests)))
        grid.add_row(f"{s.id:02d}", *row)
    out.print(grid)


@command()
def show(
    step: NN,
    lang: Annotated[str, typer.Option(
        "--lang", help="en: the README and the files changed; zh: the Chinese chapter.")] = "en",
) -> None:
    """Read a checkpoint's README and see which files it changed (or its chapter in Chinese)."""
    from rich.markdown import Markdown

    if lang not in LANGUAGES:
        raise CourseError(f"unknown language {lang!r} (use one of: {', '.join(LANGUAGES)})")
    folder = checkpoint(step)
    if lang == "zh":
        out.print(Markdown(chinese_chapter(folder.name)))
        return
    out.print(Markdown((folder / "README.md").read_text(encoding="utf-8")))
    grid = table("file", "added", "removed", title="Files changed")
    for file, added, removed in diff_stat((folder / "CHANGES.diff").read_text(encoding="utf-8")):
        grid.add_row(file, f"[green]+{added}", f"[red]−{removed}")
    out.print(grid)


def chinese_chapter(folder: str) -> str:
    """The published Chinese chapter of a step, or a line saying it is not written yet."""
    layout = course()[0]
    page = layout.docs / "zh" / f"{folder}.md"
    if not page.is_file():
        raise CourseError(f"step {folder[:2]} has no Chinese chapter yet "
                          f"(shared/chapters/zh/{folder}.md); read it in English: "
                          f"docs/{folder}.md")
    return page.read_text(encoding="utf-8")


@command("translation-hash")
def translation_hash(
    file: Annotated[Path, typer.Argument(help="The English file, e.g. shared/chapters/06_loop.md.",
                                         show_default=False)],
) -> None:
    """Print the first line a translation of FILE starts with: its path and current sha256."""
    from pi_course.paths import find_layout
    from pi_course.translations import hash_line

    root = find_layout().root
    path = (file if file.is_absolute() else Path.cwd() / file).resolve()
    if not path.is_file():
        raise CourseError(f"{file}: no such file")
    if not path.is_relative_to(root):
        raise CourseError(f"{file}: not inside the checkout {root}")
    typer.echo(hash_line(root, path.relative_to(root).as_posix()))


def coloured_diff(text: str) -> Text:
    """The diff with added lines green, removed red, hunk heads cyan; no line is cut."""
    shown = Text()
    for line in text.splitlines(keepends=True):
        style = next((s for prefix, s in DIFF_STYLES if line.startswith(prefix)), "")
        shown.append(line, style)
    return shown


@command()
def diff(step: NN) -> None:
    """Print what a checkpoint changed since the one before it (long lines are kept whole)."""
    text = (checkpoint(step) / "CHANGES.diff").read_text(encoding="utf-8")
    out.print(coloured_diff(text), soft_wrap=True, end="")


@command()
def demo(step: Latest = None) -> None:
    """Watch the complete agent fix a bug; with a step, run that checkpoint's demo.py."""
    if step is None:
        from pi_course.showcase import showcase

        raise typer.Exit(showcase(course()[0], out))
    call([sys.executable, "demo.py"], checkpoint(step), DEMO_ENV)


@command(context_settings=PASS_THROUGH)
def run(ctx: typer.Context, step: NN) -> None:
    """Run a checkpoint's `python -m course ARGS...` where you are, so paths are yours (write `--`
    before options meant for the command)."""
    folder = checkpoint(step)
    # -P: the working directory is not put on sys.path, so a `pi` or `course` folder here
    # cannot shadow the checkpoint's own packages.
    python_path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH")]))
    call([sys.executable, "-P", "-m", "course", *ctx.args], Path.cwd(), {"PYTHONPATH": python_path})


@command()
def test(
    steps: Annotated[list[str] | None, typer.Argument(help="Default: all + tooling.")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Suites at once.")] = None,
) -> None:
    """Run checkpoint suites, each in its own pytest process, and summarise them."""
    from pi_course.runner import Suite, run_suites, totals

    started = time.monotonic()
    layout, manifest = course()
    names = steps or [str(s.id) for s in manifest.steps]
    suites = [Suite(folder.name, folder) for folder in map(checkpoint, names)]
    if not steps:
        suites += [Suite(t, layout.root, (t,)) for t in TOOLING_SUITES]
    results = run_suites(suites, jobs=jobs)
    grid = table("suite", "passed", "failed", "skipped", "seconds")
    for r in results:
        cells = (str(r.passed), str(r.failed), str(r.skipped), f"{r.seconds:.1f}")
        grid.add_row(r.suite.name, *cells, style="" if r.ok else "red")
    out.print(grid)
    for r in results:
        for failing in r.failing:
            out.print(f"FAILED {r.suite.name}: {failing}", style="red", markup=False,
                      soft_wrap=True)
        if r.reason:
            out.print(f"{r.suite.name} did not run cleanly:\n{r.reason}", markup=False)
    for r in results:
        for skip in r.skips:
            out.print(f"skipped {r.suite.name}: {skip}", style="yellow", markup=False,
                      soft_wrap=True)
    passed, failed, skipped = totals(results)
    out.print(f"{len(results)} suite(s) in {time.monotonic() - started:.0f} s", markup=False)
    typer.echo(closing_line(passed, failed, skipped))
    raise typer.Exit(0 if all(r.ok for r in results) else 1)


@command()
def generate() -> None:
    """Rebuild every checkpoint folder from shared/source and shared/steps."""
    from pi_course.generate import generate as build_all

    out.print(f"generate: {len(build_all(*course()))} file(s) changed")


@command()
def verify() -> None:
    """Check that the committed checkpoints are what the source says they should be."""
    from pi_course.verify import verify as check_all

    report = check_all(course()[0])
    for warning in report.warnings:
        out.print(f"warning: {warning}", style="yellow", markup=False, soft_wrap=True)
    for problem in report.problems:
        out.print(problem, style="red", markup=False, soft_wrap=True)
    if report.problems:
        raise typer.Exit(1)
    out.print("verify: clean")


def already_practising(dest: Path, step: int) -> bool:
    """True when `dest` is a practice copy of this very step (its marker file says so)."""
    from pi_course.practice import MARKER_FILE

    marker = dest / MARKER_FILE
    return marker.is_file() and f"step = {step}\n" in marker.read_text(encoding="utf-8")


@command()
def stats(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Lines each step changes: the lesson to read, the provided code, the tests."""
    import json

    from pi_course.lessons import LESSON_BUDGET, committed_lines, provided_over_budget

    layout, manifest = course()
    rows = committed_lines(layout, manifest)

    if as_json:
        steps = [{"step": f"{r.step:02d}", "lesson": r.lesson_total,
                  "provided": r.provided_total, "provided_course": r.provided_course,
                  "tests": r.tests, "lesson_files": r.lesson}
                 for r in rows]
        out.print_json(json.dumps({"budget": LESSON_BUDGET, "steps": steps}))
        return
    grid = table("NN", "lesson", "provided", "of which course/", "tests", "lesson files",
                 title=f"Changed lines per step (lesson budget {LESSON_BUDGET})")
    for r in rows:
        files = ", ".join(f"{rel.removeprefix('pi/')} {n}" for rel, n in r.lesson.items())
        grid.add_row(f"{r.step:02d}", str(r.lesson_total), str(r.provided_total),
                     str(r.provided_course), str(r.tests), files)
    grid.add_row("all", str(sum(r.lesson_total for r in rows)),
                 str(sum(r.provided_total for r in rows)),
                 str(sum(r.provided_course for r in rows)), str(sum(r.tests for r in rows)), "")
    out.print(grid)
    for warning in provided_over_budget(rows):
        out.print(f"over budget: {warning}", markup=False, soft_wrap=True)


@command()
def practice(step: NN, dest: Folder) -> None:
    """Copy a checkpoint with this step's exercises stubbed out, for you to fill in."""
    from pi_course.practice import make_practice

    number = step_number(step)
    if already_practising(dest, number):
        out.print(f"{dest} already holds your practice copy of step {number:02d}; it is left "
                  "as it is (a new copy needs a new folder)", markup=False, soft_wrap=True)
    else:
        make_practice(*course(), number, dest)
        out.print(f"practice copy of step {number:02d} written to {dest}", markup=False,
                  soft_wrap=True)
    out.print("next: start this and leave it running while you fill in the stubs "
              "(it re-checks on every save):", markup=False, soft_wrap=True)
    out.print(f"{shlex.quote(course_command())} watch {number:02d} {shlex.quote(str(dest))}",
              markup=False,
              soft_wrap=True)


@command()
def check(
    step: StepOrFolder,
    dest: YourFolder = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Judge your practice folder with the course's own tests: pass or fail per exercise."""
    import json

    from pi_course.practice import check_practice

    number, dest = step_and_folder(step, dest)
    results = check_practice(*course(), number, dest)
    if as_json:
        report = {"step": f"{number:02d}", "exercises": [r.as_json() for r in results]}
        print(json.dumps(report, indent=1, ensure_ascii=False))
    else:  # one line per exercise, then each failing test (the first in full): fits any width
        for r in results:
            out.print(f"[green]pass[/] {r.id}" if r.passed else f"[red]fail[/] {r.id} "
                      f"({len(r.failing)} failing test{'s' if len(r.failing) != 1 else ''})")
            if not r.passed and r.failing:
                out.print(textwrap.indent(r.report(), "     "), markup=False, soft_wrap=True)
        if not all(r.passed for r in results):
            me, folder = shlex.quote(course_command()), shlex.quote(str(dest))
            out.print(f"stuck? {me} hint {number:02d} EXERCISE --dir {folder}", markup=False,
                      soft_wrap=True)
            out.print(f"the same as JSON: {me} check {number:02d} {folder} --json",
                      markup=False, soft_wrap=True)
    if not all(r.passed for r in results):
        raise typer.Exit(1)


@command()
def watch(
    step: StepOrFolder,
    dest: YourFolder = None,
    time_limit: Annotated[float, typer.Option(
        "--time-limit", help="Seconds a check may run before it is stopped (an endless loop?).",
        min=1)] = WATCH_TIME_LIMIT,
) -> None:
    """Re-check your practice folder on every save and say what to do next (h: hint, q: quit)."""
    from pi_course.watch import watch_folder

    for ending in (signal.SIGTERM, signal.SIGHUP):  # a closed terminal ends the tests too
        signal.signal(ending, signal.default_int_handler)
    try:
        number, dest = step_and_folder(step, dest)
        code = watch_folder(*course(), number, dest, out, time_limit,
                            keys=sys.stdin.isatty())
    except KeyboardInterrupt:
        out.print("watch stopped", markup=False)
        raise typer.Exit(130) from None
    raise typer.Exit(code)


@command()
def hint(
    step: Annotated[str, typer.Argument(
        metavar="STEP|EXERCISE", show_default=False,
        help="Exercise id (e.g. 06-turns), or its step number before it (06 06-turns).")],
    exercise: Annotated[str | None, typer.Argument(
        metavar="EXERCISE", show_default=False, help="Exercise id, after the step number.")] = None,
    level: Annotated[int | None, typer.Option(help="Which rung (1 = a nudge).")] = None,
    folder: Annotated[Path | None, typer.Option(
        "--dir", help="Your practice folder, where the rungs you have seen are remembered "
        "(default: the current folder, if it is one).")] = None,
) -> None:
    """One rung of an exercise's hint ladder: by default the next one you have not seen."""
    from pi_course.exercises import find_exercise, next_hint
    from pi_course.practice import MARKER_FILE

    if exercise is None:  # the id alone: its step is the number before the dash
        if not step.partition("-")[0].isdigit():
            raise CourseError(f"not an exercise id: {step!r} (ids start with their step, "
                              "e.g. 06-turns)")
        step, exercise = step.partition("-")[0], step
    chosen = find_exercise(course()[1].step(step_number(step)), exercise)
    here = folder or Path.cwd()
    remember = here if (here / MARKER_FILE).is_file() else None
    rung, text = next_hint(chosen, remember, level)
    out.print(f"{chosen.id}, hint {rung} of {len(chosen.hints)}:", style="bold", markup=False)
    out.print(text, markup=False)


@command()
def progress(
    folders: Annotated[list[Path], typer.Argument(help="Learners' practice folders.")],
    html_file: Annotated[Path | None, typer.Option(
        "--html", help="Also write an HTML page for a projector.")] = None,
) -> None:
    """A room at a glance: every practice folder checked, one row per learner."""
    from pi_course.progress import check_room, room_html

    learners = check_room(*course(), folders)
    grid = table("learner", "step", "passed", "exercises")
    for learner in learners:
        if learner.problem:
            grid.add_row(learner.folder.name, "–", "–", f"[red]{learner.problem}")
            continue
        marks = "  ".join(f"[green]✓ {r.id}" if r.passed else f"[red]✗ {r.id}"
                          for r in learner.results)
        grid.add_row(learner.folder.name, f"{learner.step:02d}",
                     f"{learner.passed}/{len(learner.results)}", marks)
    out.print(grid)
    if html_file is not None:
        html_file.write_text(room_html(learners), encoding="utf-8")
        out.print(f"progress page written to {html_file}", markup=False)


# The eval harness lives in the latest checkpoint (step 14); this command only launches it.
from pi_course.eval_command import eval_command  # noqa: E402

command("eval")(eval_command)


if __name__ == "__main__":
    app()
