"""Practice copies: a standalone step with that step's exercises replaced by stubs.

`make_practice` writes the checkpoint as the learner should receive it: every exercise region
of the step raises NotImplementedError naming the exercise and its hint, everything else is
the real code, and the copy carries what its tests need (the MockModel, the test data, the
protocol schema) so it runs anywhere. `check_practice` runs the step's tests there and says,
per exercise, whether its tests pass now.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from pi_course.generate import DEMO_OUTPUT, write_folder
from pi_course.manifest import Manifest
from pi_course.paths import CourseError, Layout
from pi_course.render import build

MARKER_FILE = ".pi-course-practice"
IGNORED = shutil.ignore_patterns("__pycache__", "tests", "*.pyc")


@dataclass(frozen=True)
class ExerciseResult:
    id: str
    hint: str
    passed: bool
    failing: list[str] = field(default_factory=list)


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
    write_folder(dest, build(layout, manifest, step, practice=True))
    shutil.copyfile(layout.checkpoints / current.folder / DEMO_OUTPUT, dest / DEMO_OUTPUT)
    shutil.copytree(layout.mock_model, dest / "mock_model", ignore=IGNORED)
    shutil.copytree(layout.data, dest / "data", ignore=IGNORED)
    shutil.copytree(layout.root / "shared" / "protocol", dest / "protocol", ignore=IGNORED)
    native_tracebacks(dest / "pytest.ini")
    exercises = ", ".join(e.id for e in current.exercises)
    (dest / MARKER_FILE).write_text(f"step = {step}\nexercises = {exercises}\n", encoding="utf-8")


def native_tracebacks(ini: Path) -> None:
    """Stubs fail deep inside async code, where CPython 3.11's ast bug (gh-106905) can crash
    pytest's own traceback formatting; Python's native tracebacks avoid it."""
    text = ini.read_text(encoding="utf-8")
    note = "# native tracebacks: see CPython gh-106905 (pytest INTERNALERROR on 3.11)\n"
    ini.write_text(text.replace("addopts = ", note + "addopts = --tb=native "), encoding="utf-8")


def run_tests(folder: Path) -> list[Outcome]:
    """Run every test in `folder` in a fresh process and read each outcome from JUnit XML."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "-o", "junit_family=xunit1", "-o", "timeout=5", f"--junitxml={report}"],
            cwd=folder, capture_output=True, text=True, check=False,
        )
        if not report.is_file():
            raise CourseError(f"pytest did not run in {folder}")
        return [outcome(case) for case in ET.parse(report).getroot().iter("testcase")]


def outcome(case: ET.Element) -> Outcome:
    module = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
    problem = case.find("failure")
    if problem is None:
        problem = case.find("error")
    message = "" if problem is None else (problem.get("message") or problem.text or "")
    return Outcome(module, f"{module}::{case.get('name')}", problem is None, message)


def check_practice(
    layout: Layout, manifest: Manifest, step: int, dest: Path
) -> list[ExerciseResult]:
    """Which of the step's exercises pass in `dest`: all tests of their modules must pass."""
    if not (dest / MARKER_FILE).is_file():
        raise CourseError(f"{dest} is not a practice copy (make one with `pi-course practice`)")
    outcomes = run_tests(dest)
    results: list[ExerciseResult] = []
    for exercise in manifest.step(step).exercises:
        failing = [o.node for o in outcomes if o.module in exercise.tests and not o.passed]
        results.append(ExerciseResult(exercise.id, exercise.hint, not failing, failing))
    return results
