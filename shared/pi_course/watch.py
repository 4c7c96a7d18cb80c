"""`pi-course watch NN DIR`: practise like rustlings, with one command left running while you edit.

On start and after every save of a `.py` file under DIR/pi/ or DIR/course/, the step is judged
by the honest checker (`check_practice`: the course's own tests for the step's exercises,
nothing else) and one screen is drawn: each exercise's state; for the first exercise not yet
passing, every failing test (the first with its message whole), the file and function to edit,
and its minutes. `h` climbs the hint ladder `pi-course hint` keeps (remembered in DIR), `q`
quits; keys are read one at a time only when stdin is a terminal. Once every exercise passes,
the screen says so and gives the command that makes the next step's copy. A run that hangs is
stopped after a time limit and code that does not parse is one line; either way the watch goes
on.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import shlex
import sys
import termios
import textwrap
import threading
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import watchfiles
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from pi_course.exercises import next_hint
from pi_course.manifest import Exercise, Manifest, Step
from pi_course.paths import CourseError, Layout, course_command
from pi_course.practice import ExerciseResult, check_practice, code_folders, practice_step
from pi_course.stubs import Site, stub_sites

DEBOUNCE_MS = 300  # a burst of saves (save-all, format on save) becomes one re-check
KEYS = {"h": "hint", "H": "hint", "q": "quit", "Q": "quit"}


@dataclass(frozen=True)
class Verdict:
    """One re-check: every exercise's result, or the one line that stopped the check."""

    results: tuple[ExerciseResult, ...] = ()
    problem: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Hint:
    """The rung last shown, for the exercise it belongs to."""

    exercise: str
    rung: int
    rungs: int
    text: str


def recheck(layout: Layout, manifest: Manifest, step: int, dest: Path, limit: float) -> Verdict:
    """Judge the copy; a problem the learner can fix (a syntax error, a hang) is its verdict."""
    started = time.monotonic()
    try:
        results = check_practice(layout, manifest, step, dest, limit)
    except (CourseError, OSError) as error:  # OSError: a file that vanished mid-save
        return Verdict(problem=str(error), seconds=time.monotonic() - started)
    return Verdict(tuple(results), seconds=time.monotonic() - started)


def current_exercise(step: Step, verdict: Verdict) -> Exercise | None:
    """The first exercise, in the step's order, that does not pass yet."""
    failing = {r.id for r in verdict.results if not r.passed}
    return next((e for e in step.exercises if e.id in failing), None)


def next_command(manifest: Manifest, step: int, dest: Path) -> str:
    """The command that makes the next step's practice copy next to this one ("" after 14)."""
    later = [s.id for s in manifest.steps if s.id > step]
    if not later:
        return ""
    name, number = dest.name, f"{later[0]:02d}"
    folder = name[:-2] + number if name.endswith(f"{step:02d}") else f"{name}-{number}"
    command = shlex.quote(course_command())
    return f"{command} practice {number} {shlex.quote(str(dest.parent / folder))}"


def climb(exercise: Exercise | None, dest: Path) -> Hint | None:
    """The next rung of the current exercise's ladder, remembered in the practice folder."""
    if exercise is None:
        return None
    rung, text = next_hint(exercise, dest, None)
    return Hint(exercise.id, rung, len(exercise.hints), text)


def screen(step: Step, dest: Path, verdict: Verdict, sites: dict[str, Site], hint: Hint | None,
           next_step: str, keys: bool, busy: bool = False) -> RenderableType:
    """Everything the learner needs after a save, on one screen (`busy`: a check is running)."""
    title = Text(f"pi-course watch · step {step.id:02d} {step.slug} · {dest}", style="bold")
    title.append(f" · checked in {verdict.seconds:.1f} s", style="dim")
    parts: list[RenderableType] = [title, Text()]
    if verdict.problem:
        parts += [Text(f"✗ {verdict.problem}", style="bold red"),
                  Text("fix it and save: the check runs again", style="dim")]
    else:
        parts += [exercise_rows(step, verdict), Text()]
        parts += (done_lines(step, next_step) if all(r.passed for r in verdict.results)
                  else current_lines(step, dest, verdict, sites))
    if hint is not None:
        parts += [Text(), Text(f"hint {hint.rung} of {hint.rungs} for {hint.exercise}:",
                               style="bold"), Text(hint.text)]
    keys_line = "press h for the next hint rung · q to quit" if keys else "Ctrl-C to stop"
    folders = " and ".join(str(folder) for folder in code_folders(dest))
    state = "checking your code…" if busy else f"watching {folders}"
    parts += [Text(), Text(f"{state} · {keys_line}", style="dim")]
    return Group(*parts)


def exercise_rows(step: Step, verdict: Verdict) -> Table:
    """One row per exercise: pass or fail, its minutes, how many of its tests fail."""
    grid = Table.grid(padding=(0, 2))
    for result, exercise in zip(verdict.results, step.exercises, strict=True):
        state = Text("✓ pass", style="green") if result.passed else Text("✗ fail", style="red")
        failing = "" if result.passed else (
            f"{len(result.failing)} of {len(exercise.tests)} tests failing")
        grid.add_row(state, Text(result.id, style="bold"), f"about {exercise.minutes} min",
                     failing)
    return grid


def current_lines(step: Step, dest: Path, verdict: Verdict, sites: dict[str, Site]) -> list[Text]:
    """What to do now: the exercise, where to write it, and its failing tests."""
    exercise = current_exercise(step, verdict)
    assert exercise is not None
    result = next(r for r in verdict.results if r.id == exercise.id)
    failing = {r.id for r in verdict.results if not r.passed}
    left = sum(e.minutes for e in step.exercises if e.id in failing)
    site = sites[exercise.id]
    return [
        Text(f"now: {exercise.id}, about {exercise.minutes} min ({left} min left in this step)",
             style="bold"),
        Text(f"edit {site.function} in {dest / site.file}"),
        Text("failing tests (the first in full):"),
        Text(textwrap.indent(result.report(), "  "), style="red"),
    ]


def done_lines(step: Step, next_step: str) -> list[Text]:
    """The step is finished: say so, and how to start the next one."""
    lines = [Text(f"✓ step {step.id:02d} done: every exercise passes.", style="bold green")]
    if next_step:
        lines.append(Text(f"next step: {next_step}", style="bold"))
    else:
        lines.append(Text("that was the last step: the course is complete.", style="bold"))
    return lines


def file_events(folders: list[Path], events: queue.Queue[str], stop: threading.Event) -> None:
    """Put one "change" per batch of saved Python files under `folders` (bursts are batched)."""
    for _ in watchfiles.watch(*folders, watch_filter=watchfiles.PythonFilter(),
                              debounce=DEBOUNCE_MS, stop_event=stop):
        events.put("change")


def key_events(fd: int, events: queue.Queue[str], stop: threading.Event) -> None:
    """Put "hint" or "quit" for each h or q typed; other keys are ignored."""
    while not stop.is_set():
        if not select.select([fd], [], [], 0.2)[0]:
            continue
        key = os.read(fd, 1).decode(errors="replace")
        if not key:
            return  # end of input: watching goes on without keys
        if key in KEYS:
            events.put(KEYS[key])


@contextlib.contextmanager
def single_keys(fd: int | None) -> Iterator[None]:
    """Keys arrive one at a time, without Enter or echo; the terminal is put back after."""
    if fd is None:
        yield
        return
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def next_events(events: queue.Queue[str]) -> set[str]:
    """Wait for an event, then take every event already queued: saves coalesce into one."""
    while True:
        try:
            got = {events.get(timeout=0.5)}  # a timeout keeps Ctrl-C prompt
            break
        except queue.Empty:
            continue
    while True:
        try:
            got.add(events.get_nowait())
        except queue.Empty:
            return got


def watch_folder(layout: Layout, manifest: Manifest, step: int, dest: Path, console: Console,
                 limit: float, keys: bool = False) -> int:
    """Re-check and redraw until q (exit code 0); Ctrl-C is the caller's to report."""
    made_for = practice_step(dest)
    if made_for != step:
        raise CourseError(f"{dest} is a practice copy of step {made_for:02d}, not {step:02d}: "
                          f"`pi-course watch {made_for:02d} {dest}`")
    folders = code_folders(dest)
    if not folders:
        raise CourseError(f"{dest} has no pi/ or course/ folder to watch")
    current = manifest.step(step)
    sites, following = stub_sites(layout, manifest, step), next_command(manifest, step, dest)
    events: queue.Queue[str] = queue.Queue()
    stop = threading.Event()
    fd = sys.stdin.fileno() if keys else None

    def draw(verdict: Verdict, hint: Hint | None, busy: bool = False) -> None:
        if console.is_terminal:
            console.clear()
        else:
            console.rule()
        console.print(screen(current, dest, verdict, sites, hint, following, keys, busy))

    hint: Hint | None = None
    with single_keys(fd):
        threading.Thread(target=file_events, args=(folders, events, stop), daemon=True).start()
        if fd is not None:
            threading.Thread(target=key_events, args=(fd, events, stop), daemon=True).start()
        try:
            console.print(f"checking step {step:02d} in {dest}…", markup=False)
            verdict = judged = recheck(layout, manifest, step, dest, limit)
            draw(verdict, hint)
            while True:
                wanted = next_events(events)
                if "quit" in wanted:
                    return 0
                if "change" in wanted:
                    draw(verdict, hint, busy=True)
                    verdict = recheck(layout, manifest, step, dest, limit)
                    judged = verdict if verdict.results else judged
                now = current_exercise(current, judged)
                if "hint" in wanted:
                    hint = climb(now, dest) or hint
                if hint is not None and (now is None or hint.exercise != now.id):
                    hint = None  # a rung of an exercise already passed helps no more
                draw(verdict, hint)
        finally:
            stop.set()
