"""Where each exercise's stub sits in a practice copy, and the course's code that can replace it.

A practice copy holds one `raise NotImplementedError('exercise NN-name: …')` line per exercise.
The manifest's tests for an exercise were chosen with every other exercise of the step solved
(scripts/exercise_tests.py stubs one exercise alone), so `check` judges each exercise that way
too: a stub the learner has not touched yet is put back to the course's code, in the throwaway
run folder only, and its exercise fails as not started. A learner who has solved one exercise
of step 06 then sees it pass while the other is still a stub.

The stub's place also tells the learner where to work: the file and the function around it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from pi_course.manifest import Manifest
from pi_course.markers import exercises_in, render
from pi_course.paths import Layout


@dataclass(frozen=True)
class Site:
    """One exercise's stub: its file, the function around it, and what the course has there."""

    exercise: str
    file: str  # relative to the practice copy, e.g. pi/agent/loop.py
    function: str  # e.g. run_loop or ToolBatch.run
    stub: str  # the stub line as handed out, indent and newline included
    solution: str  # the course's lines in its place


def stub_sites(layout: Layout, manifest: Manifest, step: int) -> dict[str, Site]:
    """Every exercise of `step`, by id, with the place of its stub."""
    hints = manifest.hints(step)
    found: dict[str, Site] = {}
    for rel in manifest.files_until(step):
        text = (layout.source / rel).read_text(encoding="utf-8")
        mine = [e for e in exercises_in(text, rel) if e in hints]
        if not mine:
            continue
        solved = render(text, step, rel)
        handed_out = render(text, step, rel, hints)
        for exercise in mine:
            alone = render(text, step, rel, {exercise: hints[exercise]})
            stub, solution = stub_and_solution(alone, solved, exercise)
            where = handed_out.splitlines(keepends=True).index(stub) + 1
            found[exercise] = Site(exercise, rel, enclosing_function(handed_out, where), stub,
                                   solution)
    return found


def stub_and_solution(alone: str, solved: str, exercise: str) -> tuple[str, str]:
    """The stub line of a file with only `exercise` stubbed, and the solved file's lines there.

    Everything before and after the stub renders the same in both, so the solution is what
    lies between the common head and the common tail.
    """
    lines, full = alone.splitlines(keepends=True), solved.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if is_stub(line, exercise))
    return lines[at], "".join(full[at:len(full) - (len(lines) - at - 1)])


def is_stub(line: str, exercise: str) -> bool:
    """Whether `line` is the stub of `exercise` (its message is quoted either way by repr)."""
    return (line.lstrip().startswith("raise NotImplementedError(")
            and f"exercise {exercise}: " in line)


def enclosing_function(text: str, line: int) -> str:
    """`Class.method` or `function` around `line`: where the learner writes the answer."""
    names: list[str] = []
    nodes: list[ast.AST] = list(ast.parse(text).body)
    while nodes:
        node = next((n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef
                                                     | ast.ClassDef)
                     and n.lineno <= line <= (n.end_lineno or n.lineno)), None)
        if node is None:
            break
        names.append(node.name)
        nodes = list(node.body)
    return ".".join(names) or "(module level)"


def untouched(copy: Path, sites: dict[str, Site]) -> dict[str, Site]:
    """The sites whose stub line is still in the learner's file, exactly as handed out."""
    left: dict[str, Site] = {}
    for exercise, site in sites.items():
        path = copy / site.file
        if path.is_file() and site.stub in path.read_text(encoding="utf-8").splitlines(True):
            left[exercise] = site
    return left


def put_back(run: Path, sites: dict[str, Site]) -> None:
    """Replace each untouched stub in the run folder by the course's code (never the copy)."""
    for site in sites.values():
        path = run / site.file
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        at = lines.index(site.stub)
        path.write_text("".join([*lines[:at], site.solution, *lines[at + 1:]]), encoding="utf-8")
