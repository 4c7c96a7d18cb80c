"""`pi-course watch`: the screen for given check results, the next step's command, the two
problems that must not end a watch (a hang, a syntax error) each as one line, each exercise
judged on its own (its neighbours' untouched stubs put back to the course's code), and an
ending by Ctrl-C or hang-up without a traceback.

The terminal itself (saves, keys, timing) is driven by scripts/check_watch_tmux.sh, run from
test_watch_tmux.py.
"""

from __future__ import annotations

import io
import os
import queue
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from pi_course.manifest import load_manifest
from pi_course.paths import CourseError, find_layout
from pi_course.practice import ExerciseResult, check_practice, make_practice
from pi_course.render import build
from pi_course.stubs import put_back, stub_sites
from pi_course.watch import Hint, Verdict, current_exercise, next_command, next_events, screen

LAYOUT = find_layout(Path(__file__))
MANIFEST = load_manifest(LAYOUT.manifest)
STEP = MANIFEST.step(6)
SITES = stub_sites(LAYOUT, MANIFEST, 6)
SOLVED = LAYOUT.checkpoints / STEP.folder / "pi" / "agent"


def shown(verdict: Verdict, hint: Hint | None = None, keys: bool = True) -> str:
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(screen(STEP, Path("p06"), verdict, SITES, hint, "pi-course practice 07 p07",
                         keys))
    return console.export_text()


def result(exercise: str, passed: bool, message: str = "") -> ExerciseResult:
    tests = next(e.tests for e in STEP.exercises if e.id == exercise)
    failing = [] if passed else list(tests[:2])
    reasons = {test: f"reason of {test}" for test in failing}
    return ExerciseResult(exercise, "", passed, failing, message, reasons)


def test_the_screen_shows_each_exercise_and_every_failing_test_of_the_current_one() -> None:
    verdict = Verdict((result("06-call-order", True),
                       result("06-turns", False, "assert 1 == 2\n  where 1 = len(x)")))
    text = shown(verdict)
    assert "✓ pass  06-call-order" in text and "✗ fail  06-turns" in text
    assert "now: 06-turns, about 25 min (25 min left in this step)" in text
    assert "edit run_loop in p06/pi/agent/loop.py" in text
    first, second = next(e.tests for e in STEP.exercises if e.id == "06-turns")[:2]
    assert f"  {first}\n    assert 1 == 2\n      where 1 = len(x)\n" in text, text
    assert f"  {second}\n    reason of {second}\n" in text, text
    assert "press h for the next hint rung" in text


def test_the_hint_asked_for_is_on_the_screen_with_its_rung() -> None:
    verdict = Verdict((result("06-call-order", False, "x"), result("06-turns", False, "y")))
    text = shown(verdict, Hint("06-call-order", 2, 3, "start them all at once"))
    assert "hint 2 of 3 for 06-call-order:" in text and "start them all at once" in text


def test_a_step_with_every_exercise_passing_says_so_and_names_the_next_command() -> None:
    verdict = Verdict((result("06-call-order", True), result("06-turns", True)))
    text = shown(verdict)
    assert "step 06 done: every exercise passes." in text
    assert "next step: pi-course practice 07 p07" in text
    assert current_exercise(STEP, verdict) is None


def test_without_a_terminal_on_stdin_the_screen_offers_no_keys() -> None:
    text = shown(Verdict((result("06-call-order", True), result("06-turns", True))), keys=False)
    assert "press h" not in text and "Ctrl-C to stop" in text


def test_a_problem_is_one_line_and_no_exercise_table() -> None:
    text = shown(Verdict(problem="p06/pi/agent/loop.py:3: syntax error: invalid syntax"))
    assert "✗ p06/pi/agent/loop.py:3: syntax error: invalid syntax" in text
    assert "fix it and save" in text and "✓ pass" not in text and "✗ fail" not in text


def test_a_burst_of_saves_waiting_in_the_queue_is_one_recheck() -> None:
    events: queue.Queue[str] = queue.Queue()
    for event in ("change", "change", "hint", "change"):
        events.put(event)
    assert next_events(events) == {"change", "hint"}
    assert events.empty()


@pytest.mark.parametrize(("dest", "command"), [
    ("my-06", "pi-course practice 07 my-07"),
    ("work/p06", "pi-course practice 07 work/p07"),
    ("loop", "pi-course practice 07 loop-07"),
    ("my copy 06", "pi-course practice 07 'my copy 07'"),
])
def test_the_next_command_makes_the_next_steps_copy_beside_this_one(
    dest: str, command: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PI_COURSE_AS", raising=False)
    assert next_command(MANIFEST, 6, Path(dest)) == command


def test_suggested_commands_run_the_course_the_way_the_learner_ran_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PI_COURSE_AS", "./pi-course")  # what the checkout's wrapper sets
    assert next_command(MANIFEST, 6, Path("p06")) == "./pi-course practice 07 p07"


def test_after_the_last_step_there_is_no_next_command() -> None:
    assert next_command(MANIFEST, MANIFEST.steps[-1].id, Path("p14")) == ""


def test_every_exercise_has_a_stub_site_naming_its_file_and_function() -> None:
    for step in MANIFEST.steps:
        sites = stub_sites(LAYOUT, MANIFEST, step.id)
        assert set(sites) == {e.id for e in step.exercises}
        assert all(s.file.startswith(("pi/", "course/")) and s.function and s.solution
                   for s in sites.values())
    assert SITES["06-call-order"].function == "ToolBatch.run"


@pytest.mark.parametrize("step", [s.id for s in MANIFEST.steps])
def test_putting_every_stub_back_gives_the_checkpoints_code_exactly(step: int,
                                                                    tmp_path: Path) -> None:
    handed_out = build(LAYOUT, MANIFEST, step, practice=True)
    solved = build(LAYOUT, MANIFEST, step)
    sites = stub_sites(LAYOUT, MANIFEST, step)
    for rel in {s.file for s in sites.values()}:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(handed_out[rel], encoding="utf-8")
    put_back(tmp_path, sites)
    for rel in {s.file for s in sites.values()}:
        assert (tmp_path / rel).read_text(encoding="utf-8") == solved[rel], rel


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("watch") / "p06"
    make_practice(LAYOUT, MANIFEST, 6, folder)
    return folder


@pytest.mark.parametrize(("solved", "passing", "waiting"), [
    ("loop.py", "06-turns", "06-call-order"),
    ("tool_batch.py", "06-call-order", "06-turns"),
])
def test_a_solved_exercise_passes_while_its_neighbour_is_still_the_stub(
        copy: Path, solved: str, passing: str, waiting: str) -> None:
    mine = copy / "pi" / "agent" / solved
    handed_out = mine.read_text(encoding="utf-8")
    shutil.copyfile(SOLVED / solved, mine)
    try:
        verdicts = {r.id: r for r in check_practice(LAYOUT, MANIFEST, 6, copy, 30)}
    finally:
        mine.write_text(handed_out, encoding="utf-8")
    assert verdicts[passing].passed and not verdicts[waiting].passed
    assert f"exercise {waiting}" in verdicts[waiting].message


def test_a_syntax_error_is_one_line_naming_file_and_line(copy: Path) -> None:
    broken = copy / "pi" / "agent" / "tool_batch.py"
    text = broken.read_text(encoding="utf-8")
    broken.write_text(text + "def broken(:\n", encoding="utf-8")
    try:
        with pytest.raises(CourseError) as raised:
            check_practice(LAYOUT, MANIFEST, 6, copy, 30)
    finally:
        broken.write_text(text, encoding="utf-8")
    line = len(text.splitlines()) + 1
    assert str(raised.value).startswith(f"{broken}:{line}: syntax error: ")
    assert "\n" not in str(raised.value)


def test_a_check_that_hangs_is_stopped_at_the_time_limit_in_one_line(copy: Path) -> None:
    looping = copy / "pi" / "agent" / "tool_batch.py"
    text = looping.read_text(encoding="utf-8")
    stub = SITES["06-call-order"].stub
    indent = stub[: len(stub) - len(stub.lstrip())]
    looping.write_text(text.replace(stub, f"{indent}while True:\n{indent}    pass\n"),
                       encoding="utf-8")
    try:
        with pytest.raises(CourseError, match=r"^stopped after 2 s: the tests did not finish"):
            check_practice(LAYOUT, MANIFEST, 6, copy, 2)
    finally:
        looping.write_text(text, encoding="utf-8")


def test_an_editors_lock_link_beside_the_code_does_not_stop_the_check(copy: Path) -> None:
    lock = copy / "pi" / "agent" / ".#loop.py"  # Emacs: a link to nowhere while a buffer is edited
    lock.symlink_to("learner@laptop.4242:1700000000")
    try:
        assert len(check_practice(LAYOUT, MANIFEST, 6, copy, 30)) == len(STEP.exercises)
    finally:
        lock.unlink()


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "hang-up"])
def test_without_a_terminal_watch_draws_the_screen_and_ctrl_c_or_hang_up_ends_it_cleanly(
        copy: Path, ending: signal.Signals) -> None:
    watching = subprocess.Popen(
        [sys.executable, "-m", "pi_course.cli", "watch", "06", str(copy)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 30
    lines: list[str] = []
    while time.monotonic() < deadline and watching.stdout is not None:
        lines.append(watching.stdout.readline())
        if "Ctrl-C to stop" in lines[-1]:
            break
    watching.send_signal(ending)
    rest, _ = watching.communicate(timeout=30)
    text = "".join(lines) + rest
    assert "now: 06-call-order" in text and "press h" not in text
    assert watching.returncode == 130 and text.rstrip().endswith("watch stopped")
    assert "Traceback" not in text


def test_practices_last_line_is_the_exact_watch_command_for_its_copy(tmp_path: Path) -> None:
    made = subprocess.run([sys.executable, "-m", "pi_course.cli", "practice", "02", "my copy"],
                          cwd=tmp_path, capture_output=True, text=True, check=True,
                          env={**os.environ, "PI_COURSE_AS": "../pi course/pi-course"})
    assert made.stdout.splitlines()[-1] == "'../pi course/pi-course' watch 02 'my copy'"
