"""Practice copies: a standalone step with that step's exercises replaced by stubs.

`make_practice` writes the checkpoint as the learner should receive it: every exercise region
of the step raises NotImplementedError naming the exercise and its first hint, everything else
is the real code (its diff and chapter show the stubs, never the answers), and the copy
carries what its tests need (the MockModel, the test data, the protocol schema) so it runs
anywhere.

`check_practice` is the honest judge: it runs the course's own pristine tests, snapshots and
data for the step against the learner's `pi/` and `course/` only, never the copy's tests or
snapshots (a learner who runs `pytest --snapshot-update` in the copy changes nothing it
reports), and only the tests named for the exercises, so it costs about what pytest on those
tests costs. Each exercise is judged with the step's other untouched stubs put back to the
course's code (the way its tests were chosen), so one solved exercise passes while its
neighbour is still a stub. Code that does not parse is one line naming file and line, and a run
can be given a time limit.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from pi_course.docs import render_chapter
from pi_course.generate import CHAPTER, DEMO_OUTPUT, write_folder
from pi_course.manifest import Exercise, Manifest
from pi_course.paths import CODE, PACKAGES, CourseError, Layout
from pi_course.render import build
from pi_course.stubs import put_back, stub_sites, untouched

MARKER_FILE = ".pi-course-practice"
RUN_IT_IN_PRACTICE = ("\n## Run it\n\nIn this practice copy these commands run your code: until "
                      "an exercise passes, what calls its stub stops with `NotImplementedError` "
                      "and the exercise's first hint. A test may go through another exercise's "
                      "stub and fail for that reason; `pi-course check` judges each exercise "
                      "with the stubs you have not touched put back to the course's code. What "
                      "you have written is judged as it is, so a mistake in one exercise can also "
                      "fail a test that another one shares: the test's name states the rule.\n")
NEXT_IN_PRACTICE = ("\n## Next\n\nWhen `pi-course check` passes every exercise of this copy, "
                    "`pi-course practice {step} my-{step}` makes the next step's copy. Its "
                    "chapter:\n")
# A checkpoint's README names its neighbours as `[`../05_tools/`](../05_tools/)`.
STEP_PATH = re.compile(r"`\.\./(\d\d_[\w-]+)/`")
STEP_LINK = re.compile(r"\]\(\.\./(\d\d_[\w-]+)/\)")
IGNORED = shutil.ignore_patterns("__pycache__", "tests", "*.pyc")
# The plugins the course's tests use, and no others: whatever else a learner has installed
# (pytest-asyncio, …) cannot change a verdict, and not loading it saves ~0.4 s per check.
PLUGINS = ("-p", "pytest_timeout", "-p", "pytest_snapshot.plugin")
# A failure is shown as its exception alone (`--tb=line`: no traceback, and no source parsed,
# so CPython 3.11's ast bug cannot strike, see native_tracebacks). pytest stays quiet: more
# verbosity would print long values whole, but its full diff of two big lists can take minutes.
WHOLE_FAILURES = ("--tb=line",)
SHOWN_LINES = 60  # of one failure's message
REASON_WIDTH = 160  # a failing test's one-line reason
# Advice for a pytest run that a learner running check cannot take: pytest-snapshot's
# `--snapshot-update` would rewrite the course's expected output, and check has no -v.
SNAPSHOT_ADVICE = re.compile(r"\(run pytest with --snapshot-update to [^)]*\)")
FIXED_SNAPSHOT = "(the expected output is fixed by the course: make your code's output match it)"
VERBOSE_ADVICE = re.compile(r",? use '?-vv?'? to show")


@dataclass(frozen=True)
class ExerciseResult:
    """One exercise's verdict: its failing test ids, each one's one-line reason, and the first
    failure's message whole."""

    id: str
    hint: str
    passed: bool
    failing: list[str] = field(default_factory=list)
    message: str = ""
    reasons: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {"id": self.id, "status": "pass" if self.passed else "fail",
                "failing": self.failing, "reasons": self.reasons, "message": self.message}

    def report(self) -> str:
        """Every failing test by name: the first with its message whole, the others with their
        one-line reason, each indented under its name. Tests that fail for the reason just
        shown (an untouched stub fails them all alike) are counted, not listed."""
        lines: list[str] = []
        shown, alike = None, 0
        for number, test_id in enumerate(self.failing):
            reason = self.reasons.get(test_id, "")
            if number > 0 and reason == shown:
                alike += 1
                continue
            detail = self.message if number == 0 else reason
            lines += [*alike_line(alike), test_id, textwrap.indent(detail, "  ")]
            shown, alike = reason, 0
        return "\n".join([*lines, *alike_line(alike)])


def alike_line(count: int) -> list[str]:
    """`… (N more tests, same reason)`, or nothing for none."""
    return [f"… ({count} more test{'s' if count > 1 else ''}, same reason)"] if count else []


@dataclass(frozen=True)
class Outcome:
    """One test's result in a practice run: its module, id, and failure text if any."""

    module: str
    node: str
    passed: bool
    message: str


def make_practice(layout: Layout, manifest: Manifest, step: int, dest: Path) -> None:
    """Write the practice copy of `step` into `dest`, which must not exist or be empty."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise CourseError(f"{dest} already exists; practice never overwrites, pick a new folder")
    current = manifest.step(step)
    dest.mkdir(parents=True, exist_ok=True)
    files = build(layout, manifest, step, practice=True)
    files[CHAPTER] = render_chapter(layout, current, files)
    for page in ("README.md", CHAPTER):
        files[page] = links_from_anywhere(files[page], layout)
    files["README.md"] = files["README.md"].replace("\n## Run it\n", RUN_IT_IN_PRACTICE, 1)
    later = [other.id for other in manifest.steps if other.id > step]
    if later:
        next_step = NEXT_IN_PRACTICE.format(step=f"{later[0]:02d}")
        files["README.md"] = files["README.md"].replace("\n## Next\n", next_step, 1)
    write_folder(dest, files)
    shutil.copyfile(layout.checkpoints / current.folder / DEMO_OUTPUT, dest / DEMO_OUTPUT)
    shutil.copytree(layout.mock_model, dest / "mock_model", ignore=IGNORED)
    shutil.copytree(layout.data, dest / "data", ignore=IGNORED)
    shutil.copytree(layout.root / "shared" / "protocol", dest / "protocol", ignore=IGNORED)
    native_tracebacks(dest / "pytest.ini")
    exercises = ", ".join(e.id for e in current.exercises)
    (dest / MARKER_FILE).write_text(f"step = {step}\nexercises = {exercises}\n", encoding="utf-8")


def links_from_anywhere(page: str, layout: Layout) -> str:
    """A checkpoint's page names the course's files relative to `checkpoints/NN_*/`; a practice
    copy lives anywhere, so its data is its own `data/` and the rest (the venv, the docs) is
    named by the course's absolute path. A link to another step leads to its chapter in docs/
    (its checkpoint holds the answers of this step's exercises)."""
    root = layout.root.resolve().as_posix()
    page = page.replace("../../shared/data/", "data/")
    for folder in (".venv/", "docs/"):
        page = page.replace(f"../../{folder}", f"{root}/{folder}")
    page = STEP_PATH.sub(r"`docs/\1.md`", page)
    return STEP_LINK.sub(rf"]({root}/docs/\1.md)", page)


def native_tracebacks(ini: Path) -> None:
    """Stubs fail deep inside async code, where CPython 3.11's ast bug (gh-106905) can crash
    pytest's own traceback formatting; Python's native tracebacks avoid it."""
    text = ini.read_text(encoding="utf-8")
    note = "# native tracebacks: see CPython gh-106905 (pytest INTERNALERROR on 3.11)\n"
    ini.write_text(text.replace("addopts = ", note + "addopts = --tb=native "), encoding="utf-8")


def run_tests(folder: Path, select: list[str] | None = None,
              limit: float | None = None) -> list[Outcome]:
    """Run the tests in `folder` (or only `select`) in a fresh process; outcomes from JUnit XML.

    With `limit`, a run still going after that many seconds (an endless loop in the code under
    test) is stopped, its whole process group with it, and reported in one line.
    """
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   *PLUGINS, *WHOLE_FAILURES, "-o", "junit_family=xunit1", "-o", "timeout=20",
                   f"--junitxml={report}", *(select or [])]
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        child = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace", start_new_session=True)
        try:
            output, _ = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            stop(child)
            raise CourseError(f"stopped after {limit:g} s: the tests did not finish (an endless "
                              "loop in your code?)") from None
        except BaseException:  # Ctrl-C in `watch`: the tests must not outlive it
            stop(child)
            raise
        if not report.is_file():
            last = output.strip().splitlines() or ["no output"]
            raise CourseError(f"pytest did not run in {folder}: {last[-1]}")
        return [outcome(case) for case in ET.parse(report).getroot().iter("testcase")]


def stop(child: subprocess.Popen[str]) -> None:
    """Kill a test run and anything it started (it leads its own process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)
    child.communicate()


def outcome(case: ET.Element) -> Outcome:
    module = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
    problem = case.find("failure")
    if problem is None:
        problem = case.find("error")
    message = "" if problem is None else exception_text(problem)
    return Outcome(module, f"{module}::{case.get('name')}", problem is None, message)


def exception_text(problem: ET.Element) -> str:
    """The exception a test failed with, whole. Its `message` attribute is cut after 500
    characters; with `--tb=line` the element's text is the exception's lines, the first marked
    `E   ` and the others indented by four (the last such block: a chain ends with it).
    pytest-snapshot's advice to update the snapshot is replaced (check never changes it), and
    pytest's to add -v is left out."""
    blocks: list[str] = re.findall(r"^E   (.*(?:\n    .*)*)", problem.text or "", re.MULTILINE)
    if not blocks:  # not an exception (a missing fixture): pytest's own words
        return problem.get("message") or problem.text or ""
    lines = [line for line in blocks[-1].split("\n    ")
             if line.strip() != "Use -v to get more diff"]  # a learner runs check, not pytest
    if len(lines) > SHOWN_LINES:  # a long message must not bury the terminal
        lines = [*lines[:SHOWN_LINES], f"… ({len(lines) - SHOWN_LINES} more lines)"]
    text = SNAPSHOT_ADVICE.sub(FIXED_SNAPSHOT, "\n".join(lines))
    return VERBOSE_ADVICE.sub("", text)


def one_line(message: str) -> str:
    """A failure's reason on one line: its first, cut to REASON_WIDTH characters."""
    first = message.strip().partition("\n")[0]
    return first if len(first) <= REASON_WIDTH else first[: REASON_WIDTH - 1] + "…"


def pristine_run_folder(layout: Layout, manifest: Manifest, step: int, learner: Path | None,
                        run: Path, code: dict[str, str] | None = None) -> None:
    """The course's tests, data and snapshots for `step`, around the learner's `pi/` and
    `course/` alone (or around `code`, the packages as text, when there is no learner folder)."""
    files = {**build(layout, manifest, step), **(code or {})}
    for rel, text in files.items():
        if (code is not None or not rel.startswith(CODE)) and rel.endswith((".py", ".ini")):
            target = run / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if learner is not None:
        for package in PACKAGES:
            if not any(rel.startswith(f"{package}/") for rel in files):
                continue  # step 00 has no `pi/` yet
            if not (learner / package).is_dir():
                raise CourseError(f"{learner} has no {package}/ folder to check")
            shutil.copytree(learner / package, run / package,
                            ignore=shutil.ignore_patterns("__pycache__"),
                            ignore_dangling_symlinks=True)  # Emacs's lock links, .#loop.py
    (run / "data").symlink_to(layout.data.resolve(), target_is_directory=True)
    (run / "mock_model").symlink_to(layout.mock_model.resolve(), target_is_directory=True)
    (run / "protocol").symlink_to((layout.root / "shared" / "protocol").resolve(),
                                  target_is_directory=True)


def covers(test_id: str, node: str) -> bool:
    """Whether a manifest test id names this outcome (every parametrisation included)."""
    return node == test_id or node.startswith(test_id + "[")


def practice_step(dest: Path) -> int:
    """The step a practice folder was made for, from its marker file."""
    marker = dest / MARKER_FILE
    if not marker.is_file():
        raise CourseError(f"{dest} is not a practice copy (make one with `pi-course practice`)")
    for line in marker.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "step" and value.strip().isdigit():
            return int(value)
    raise CourseError(f"{marker}: no `step = N` line")


def syntax_errors(dest: Path) -> None:
    """One line naming the file and line when the learner's code does not parse."""
    for path in code_paths(dest):
        try:
            source = path.read_bytes()
        except OSError:  # an editor's lock link (.#loop.py) or a file mid-save: not code
            continue
        try:
            compile(source, str(path), "exec", dont_inherit=True)
        except SyntaxError as error:
            raise CourseError(f"{path}:{error.lineno}: syntax error: {error.msg}") from None
        except ValueError as error:  # a null byte
            raise CourseError(f"{path}: cannot be read as Python: {error}") from None


def code_folders(dest: Path) -> list[Path]:
    """The learner's packages in a practice copy: `pi/` (from step 01) and `course/`."""
    return [dest / package for package in PACKAGES if (dest / package).is_dir()]


def code_paths(dest: Path) -> list[Path]:
    return sorted(path for folder in code_folders(dest) for path in folder.rglob("*.py"))


def check_practice(
    layout: Layout, manifest: Manifest, step: int, dest: Path, limit: float | None = None
) -> list[ExerciseResult]:
    """Each exercise of `step`: pass when every test named for it passes on the learner's code.

    An exercise whose stub is still untouched fails as it stands, without running anything;
    for the others its stub is put back to the course's code (see stubs.py). `limit` stops a
    run that takes longer than that many seconds.
    """
    practice_step(dest)
    syntax_errors(dest)
    exercises = manifest.step(step).exercises
    waiting = untouched(dest, stub_sites(layout, manifest, step))
    wanted = sorted({t for e in exercises if e.id not in waiting for t in e.tests})
    outcomes: list[Outcome] = []
    if wanted:
        with tempfile.TemporaryDirectory() as scratch:
            run = Path(scratch) / "run"
            pristine_run_folder(layout, manifest, step, dest, run)
            put_back(run, waiting)
            outcomes = run_tests(run, wanted, limit)
    return [not_started(e) if e.id in waiting else judged(e, outcomes) for e in exercises]


def not_started(exercise: Exercise) -> ExerciseResult:
    """An exercise whose stub is untouched: every test fails with the stub's own message."""
    message = f"NotImplementedError: exercise {exercise.id}: {exercise.hint}"
    stub_reason = f"NotImplementedError: the stub of {exercise.id}, not written yet"
    reasons = dict.fromkeys(exercise.tests, stub_reason)
    return ExerciseResult(exercise.id, exercise.hint, False, list(exercise.tests), message,
                          reasons)


def judged(exercise: Exercise, outcomes: list[Outcome]) -> ExerciseResult:
    """Pass when every test named for the exercise ran and passed."""
    failing: list[str] = []
    reasons: dict[str, str] = {}
    message = ""
    for test_id in exercise.tests:
        mine = [o for o in outcomes if covers(test_id, o.node)]
        broken = [o for o in mine if not o.passed]
        if not mine or broken:
            failing.append(test_id)
            reasons[test_id] = one_line(broken[0].message) if broken else "not run"
            message = message or (broken[0].message if broken else "not run")
    return ExerciseResult(exercise.id, exercise.hint, not failing, failing, message, reasons)
