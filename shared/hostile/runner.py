"""Run cases one by one, each in a fresh folder and under a deadline, and count failures.

A case is a function that gets a `Check` (its folder, and four ways to report a broken
promise). Anything it raises is a crash too: the suite's own code runs the agent's code,
and an exception that escapes is exactly what a user would have seen as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("crash", "lost", "leaked", "escape")
DEADLINE = int(os.environ.get("HOSTILE_DEADLINE", "20"))  # past this a case hangs: a crash


@dataclass
class Check:
    """What one case found; `root` is its own folder (workspace, outside, files)."""

    root: Path
    problems: list[tuple[str, str]] = field(default_factory=list)

    def crash(self, why: str) -> None:
        self.problems.append(("crash", why))

    def lost(self, why: str) -> None:
        self.problems.append(("lost", why))

    def leaked(self, why: str) -> None:
        self.problems.append(("leaked", why))

    def escape(self, why: str) -> None:
        self.problems.append(("escape", why))


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    run: Callable[[Check], None]
    deadline: int = DEADLINE


class Hang(BaseException):
    """Raised into a case past its deadline; a BaseException, so that the agent's own
    `except Exception` (which turns errors into one line) cannot swallow it."""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Interrupt the case after `seconds`, and again every second until it gives up."""
    def expired(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_case(case: Case) -> list[tuple[str, str]]:
    folder = Path(tempfile.mkdtemp(prefix="hostile-"))
    check = Check(folder)
    cwd = os.getcwd()
    try:
        with deadline(case.deadline):
            case.run(check)
    except Hang as hang:
        check.crash(f"hang: {hang}")
    except BaseException as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
        check.crash(f"{type(error).__name__}: {str(error)[:200]} "
                    f"({Path(last.filename).name}:{last.lineno})")
    finally:
        os.chdir(cwd)
        try:
            shutil.rmtree(folder, ignore_errors=True)
        except RecursionError:  # a case's folders thousands deep: rmtree recurses per level
            subprocess.run(["rm", "-rf", str(folder)], check=False)
    return check.problems


def all_cases() -> list[Case]:
    from hostile import (
        fam_bounds,
        fam_disk,
        fam_resources,
        fam_rpc,
        fam_scripts,
        fam_secrets,
        fam_sessions,
        fam_streams,
        fam_tools,
    )
    cases: list[Case] = []
    for family in (fam_sessions, fam_streams, fam_scripts, fam_tools, fam_rpc, fam_secrets,
                   fam_resources, fam_disk, fam_bounds):
        cases += family.cases()
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hostile", description=__doc__)
    parser.add_argument("--family", help="run only this family (e.g. sessions)")
    parser.add_argument("--list", action="store_true", help="list the cases, run nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per case")
    args = parser.parse_args(argv)
    cases = [c for c in all_cases() if args.family in (None, c.family)]
    if args.list:
        for case in cases:
            print(f"{case.family}: {case.name}")
        print(f"{len(cases)} cases")
        return 0
    counts = dict.fromkeys(KINDS, 0)
    by_family: dict[str, int] = {}
    failures: list[str] = []
    started = time.monotonic()
    for case in cases:
        by_family[case.family] = by_family.get(case.family, 0) + 1
        problems = run_case(case)
        for kind in {kind for kind, _ in problems}:
            counts[kind] += 1
        for kind, why in problems:
            failures.append(f"FAIL {kind:<6} {case.family}: {case.name}: {why}")
            print(failures[-1], flush=True)  # at once: a run cut short still shows them
        if args.verbose and not problems:
            print(f"ok   {case.family}: {case.name}", flush=True)
    families = ", ".join(f"{name} {count}" for name, count in by_family.items())
    print(f"families: {families} ({time.monotonic() - started:.0f} s)")
    print(f"hostile: {len(cases)} cases, {counts['crash']} crashes, {counts['lost']} lost, "
          f"{counts['leaked']} leaked, {counts['escape']} escapes")
    return 1 if failures else 0
