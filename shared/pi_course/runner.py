"""Run pytest suites as separate processes and read their results back from JUnit XML.

Every checkpoint ships a package with the same name, `pi`, so two checkpoints can never share
an interpreter: each suite gets its own process and its own working directory. Counting comes
from the JUnit report rather than from pytest's console text, which is meant for people.
While they run, a terminal shows the elapsed time and the suites in progress; a log (CI) gets
one line per suite as it finishes. The reason for each skip is kept, to be shown at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

PYTEST = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1")
REASON_LINES = 15


@dataclass(frozen=True)
class Suite:
    """One pytest run: a display name, the folder it runs in, and extra pytest arguments."""

    name: str
    cwd: Path
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class SuiteResult:
    """What one suite did; `reason` holds the output tail when pytest itself went wrong."""

    suite: Suite
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    failing: list[str] = field(default_factory=list)
    reason: str = ""
    exit_code: int = 0
    skips: list[str] = field(default_factory=list)  # "node id: reason", one per skipped test

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.exit_code == 0


def default_jobs() -> int:
    """Both cores when there are two: suites are process-bound and the course targets 2 CPUs."""
    return max(1, min(2, os.cpu_count() or 1))


def node_id(case: ET.Element) -> str:
    """Rebuild pytest's node id from a JUnit test case (xunit1 keeps the file attribute)."""
    classname, name, file = case.get("classname", ""), case.get("name", ""), case.get("file")
    if not file:
        return f"{classname}::{name}" if classname else name
    if not classname:  # a collection error names the module, not a test
        return file
    module = file.removesuffix(".py").replace("/", ".")
    classes = classname[len(module) + 1 :].split(".") if classname.startswith(module + ".") else []
    return "::".join([file, *classes, name])


def skip_reason(case: ET.Element) -> str:
    """Why pytest skipped a test: the `skipped` element's message, without its location."""
    skipped = case.find("skipped")
    message = (skipped.get("message", "") if skipped is not None else "") or "no reason given"
    return message.removeprefix("Skipped: ")


def read_junit(path: Path) -> tuple[int, int, int, list[str], list[str]] | None:
    """(passed, failed, skipped, failing ids, skips) from a report; None when there is none."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    passed = failed = skipped = 0
    failing: list[str] = []
    skips: list[str] = []
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
            failing.append(node_id(case))
        elif "skipped" in tags:
            skipped += 1
            skips.append(f"{node_id(case)}: {skip_reason(case)}")
        else:
            passed += 1
    return passed, failed, skipped, failing, skips


def run_suite(suite: Suite, report: Path) -> SuiteResult:
    """Run one suite to completion; a run pytest could not finish counts as one failure."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, *PYTEST, f"--junitxml={report}", *suite.args]
    start = time.monotonic()
    done = subprocess.run(
        command, cwd=suite.cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
    )
    seconds = time.monotonic() - start
    passed, failed, skipped, failing, skips = read_junit(report) or (0, 0, 0, [], [])
    reason = ""
    if done.returncode not in (0, 1):  # 2 interrupted, 3 internal, 4 usage, 5 no tests
        tail = done.stdout.strip().splitlines()[-REASON_LINES:]
        reason = "\n".join(tail) or f"pytest exited with code {done.returncode}"
        failed = max(failed, 1)
    elif done.returncode == 1 and failed == 0:
        failed, reason = 1, "\n".join(done.stdout.strip().splitlines()[-REASON_LINES:])
    return SuiteResult(
        suite, passed, failed, skipped, seconds, failing, reason, done.returncode, skips
    )


def run_suites(
    suites: Sequence[Suite],
    jobs: int | None = None,
    on_done: Callable[[SuiteResult], None] | None = None,
    console: Console | None = None,
) -> list[SuiteResult]:
    """Run suites `jobs` at a time; results come back in the order the suites were given."""
    if not suites:
        return []
    workers = max(1, jobs if jobs is not None else default_jobs())
    console = console or Console(stderr=True)
    results: dict[int, SuiteResult] = {}
    running: list[str] = []
    lock = threading.Lock()
    progress = Progress(
        TextColumn("[bold]testing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[running]}"), console=console, transient=True,
        disable=not console.is_terminal,
    )
    task = progress.add_task("suites", total=len(suites), running="")

    def show_running() -> None:
        progress.update(task, running="running " + ", ".join(running) if running else "")

    def tracked(suite: Suite, report: Path) -> SuiteResult:
        with lock:
            running.append(suite.name)
            show_running()
        try:
            return run_suite(suite, report)
        finally:
            with lock:
                running.remove(suite.name)
                show_running()

    with (tempfile.TemporaryDirectory(prefix="pi-course-") as tmp, progress,
          ThreadPoolExecutor(max_workers=workers) as pool):
        futures = {
            pool.submit(tracked, suite, Path(tmp) / f"{index}.xml"): index
            for index, suite in enumerate(suites)
        }
        for future in as_completed(futures):
            result = future.result()
            results[futures[future]] = result
            progress.update(task, advance=1)
            if not console.is_terminal:  # a log: one line per suite instead of a bar
                console.print(log_line(result, len(results), len(suites)), markup=False,
                              highlight=False, soft_wrap=True)
            if on_done is not None:
                on_done(result)
    return [results[index] for index in range(len(suites))]


def log_line(result: SuiteResult, done: int, total: int) -> str:
    """`[3/20] 02_stream: 41 passed, 0 failed, 0 skipped in 6.2 s` for a non-terminal log."""
    return (f"[{done}/{total}] {result.suite.name}: {result.passed} passed, {result.failed} "
            f"failed, {result.skipped} skipped in {result.seconds:.1f} s")


def totals(results: Sequence[SuiteResult]) -> tuple[int, int, int]:
    """(passed, failed, skipped) summed over every suite."""
    return (
        sum(r.passed for r in results),
        sum(r.failed for r in results),
        sum(r.skipped for r in results),
    )
