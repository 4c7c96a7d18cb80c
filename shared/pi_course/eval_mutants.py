"""`pi-course eval --mutants`: do the eval suites catch real bugs? Plant them and see.

A suite that passes on the good agent proves little: it must also FAIL on a broken one. The
catalog (`evals/mutants/catalog.yaml`) holds realistic bugs, each a few search/replace edits
against the latest checkpoint, with the bug it models and the layers whose cases should notice
it. For every mutant the checkpoint is copied to a scratch folder (never touched in place),
the edits are applied (each search text must occur exactly once: a catalog that no longer fits
the code is an error, not a silent pass), and the clean harness runs the public and the
held-out cases of those layers on the copy. A mutant is *killed* when some case does not pass.

Exit codes: 0 every mutant killed (or listed as equivalent, with the reason); 1 a mutant
survived, or a `planted` one was missed by one of the two suites; 2 a broken catalog.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml  # type: ignore[import-untyped, unused-ignore]
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pi_course.paths import CourseError, Layout

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "tests", ".pytest_cache")
SUITES = ("cases", "held_out")


class Edit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    file: str
    find: str
    replace: str


class Mutant(BaseModel):
    """One planted bug: what it models, where its cases are, and the edits that make it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^\d{2}-[a-z0-9-]+$")
    bug: str
    layers: tuple[str, ...] = Field(min_length=1)
    edits: tuple[Edit, ...] = Field(min_length=1)
    planted: bool = False  # one of issue 15's five bugs: both suites must catch it
    equivalent: str | None = None  # why no case can tell it apart from the real code


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    mutants: tuple[Mutant, ...]


@dataclass(frozen=True)
class Verdict:
    """Which cases of each suite did not pass on the mutant (empty: the suite missed it)."""

    mutant: Mutant
    killers: dict[str, tuple[str, ...]]

    @property
    def killed(self) -> bool:
        return any(self.killers.values())

    @property
    def ok(self) -> bool:
        if self.mutant.equivalent is not None:
            return True
        if self.mutant.planted:
            return all(self.killers.get(suite) for suite in SUITES)
        return self.killed


def load_catalog(file: Path) -> list[Mutant]:
    """The catalog's mutants, checked; CourseError (one line naming the file) if broken."""
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        mutants = list(Catalog.model_validate(data).mutants)
    except OSError as error:
        raise CourseError(f"{file}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise CourseError(f"{file}: not valid YAML: {' '.join(str(error).split())}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CourseError(f"{file}: {where}: {first['msg']}") from None
    ids = [mutant.id for mutant in mutants]
    if len(set(ids)) != len(ids):
        raise CourseError(f"{file}: two mutants share an id")
    return mutants


def apply_mutant(mutant: Mutant, folder: Path) -> None:
    """Apply the edits in `folder`; every search text must occur exactly once."""
    for edit in mutant.edits:
        file = folder / edit.file
        if not file.is_file():
            raise CourseError(f"mutant {mutant.id}: no file {edit.file} in {folder.name}")
        text = file.read_text(encoding="utf-8")
        found = text.count(edit.find)
        if found != 1:
            raise CourseError(f"mutant {mutant.id}: its search text occurs {found} times in "
                              f"{edit.file} (expected once); update evals/mutants/catalog.yaml")
        file.write_text(text.replace(edit.find, edit.replace), encoding="utf-8")


def mutated_copy(layout: Layout, checkpoint: Path, mutant: Mutant, scratch: Path) -> Path:
    """A copy of `checkpoint` under `scratch` (same folder name) with the mutant applied."""
    copy = scratch / checkpoint.name
    shutil.copytree(checkpoint, copy, ignore=IGNORED)
    (copy / "data").symlink_to(layout.data, target_is_directory=True)
    apply_mutant(mutant, copy)
    return copy


def case_layers(suite: Path) -> dict[str, tuple[str, int]]:
    """Case id → (layer, first checkpoint), read straight from the case files."""
    found = {}
    for file in sorted(suite.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        found[str(data.get("id"))] = (str(data.get("layer")), int(data.get("first_checkpoint", 0)))
    return found


def cases_for(mutant: Mutant, suite: Path, step: int) -> list[str]:
    return [case for case, (layer, first) in case_layers(suite).items()
            if layer in mutant.layers and first <= step]


def killers_in(report: Path) -> tuple[str, ...]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return tuple(f"{r['case']} ({r['outcome'].removesuffix('_failed')}: {r['code']})"
                 for r in data["results"] if r["outcome"] != "passed")


def run_suite(harness: Path, suite: Path, copy: Path, cases: Sequence[str], jobs: int,
              report: Path) -> tuple[str, ...]:
    """The cases of `suite` that did not pass on the mutated copy."""
    if not cases:
        return ()
    command = [sys.executable, "-m", "course", "evals", "run", "--suite", str(suite),
               "--target", str(copy), "--report", str(report), "--jobs", str(jobs),
               "--timeout", "60", *(arg for case in cases for arg in ("--case", case))]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, cwd=harness, env=env, capture_output=True, text=True,
                          check=False, stdin=subprocess.DEVNULL)
    if done.returncode not in (0, 1) or not report.is_file():
        tail = " ".join(done.stderr.strip().splitlines()[-2:])
        raise CourseError(f"the harness failed on {suite.name} (exit {done.returncode}): {tail}")
    return killers_in(report)


def judge_mutant(layout: Layout, harness: Path, checkpoint: Path, step: int, mutant: Mutant,
                 jobs: int) -> Verdict:
    with tempfile.TemporaryDirectory(prefix=f"pi-mutant-{mutant.id}-") as scratch:
        copy = mutated_copy(layout, checkpoint, mutant, Path(scratch))
        killers = {}
        for name in SUITES:
            suite = layout.root / "evals" / name
            killers[name] = run_suite(harness, suite, copy, cases_for(mutant, suite, step),
                                      jobs, Path(scratch) / f"{name}.json")
        return Verdict(mutant, killers)


def run_mutants(layout: Layout, harness: Path, checkpoint: Path, step: int,
                mutants: Iterable[Mutant], jobs: int, parallel: int = 1) -> list[Verdict]:
    """Judge every mutant (`parallel` mutants at once, each running `jobs` cases at once)."""
    chosen = list(mutants)
    with ThreadPoolExecutor(max_workers=max(parallel, 1)) as pool:
        return list(pool.map(lambda m: judge_mutant(layout, harness, checkpoint, step, m, jobs),
                             chosen))


def verdict_line(verdict: Verdict) -> str:
    mutant = verdict.mutant
    if mutant.equivalent is not None:
        return f"equivalent ({mutant.equivalent})"
    if verdict.ok:
        return "killed"
    if verdict.killed:
        return "MISSED by one suite (planted bugs must be caught by both)"
    return "SURVIVED"
