"""Step markers: how one source file becomes the file of any step.

A marker is a comment line of its own:

    # [from 03]            the lines up to `# [end]` exist from step 03 on
    # [only 01-02]         the lines exist only in steps 01..02; in the source they are
                           commented as `#| code`, so the source always runs as the last step
    # [exercise 02-name]   the lines are the solution of exercise 02-name; a practice copy of
                           step 02 replaces them with a stub that raises NotImplementedError
    # [end]                closes the innermost open region
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass

from pi_course.paths import CourseError

MARKER = re.compile(r"^(?P<indent>[ \t]*)# \[(?P<body>[^\]]*)\][ \t]*$")
FROM = re.compile(r"^from (\d{2})$")
ONLY = re.compile(r"^only (\d{2})-(\d{2})$")
EXERCISE = re.compile(r"^exercise ((\d{2})-[a-z0-9-]+)$")
COMMENTED = re.compile(r"^(?P<indent>[ \t]*)#\| ?(?P<code>.*)$")


class MarkerError(CourseError):
    """A marker that is malformed or unbalanced, with the file and line that hold it."""


@dataclass(frozen=True)
class Region:
    """One open marker region while a file is read top to bottom."""

    kind: str  # "from", "only" or "exercise"
    first: int
    last: int
    exercise: str
    indent: str
    line: int


def parse_marker(body: str, indent: str, line: int, where: str) -> Region | None:
    """The region a marker body opens, or None for `end`."""
    if body == "end":
        return None
    if match := FROM.match(body):
        return Region("from", int(match[1]), 99, "", indent, line)
    if match := ONLY.match(body):
        first, last = int(match[1]), int(match[2])
        if first > last:
            raise MarkerError(f"{where}:{line}: `only {body[5:]}` ends before it starts")
        return Region("only", first, last, "", indent, line)
    if match := EXERCISE.match(body):
        return Region("exercise", int(match[2]), 99, match[1], indent, line)
    raise MarkerError(f"{where}:{line}: unknown marker `# [{body}]`")


def render(
    text: str,
    step: int,
    where: str,
    practice_hints: Mapping[str, str] | None = None,
    answers: Mapping[str, str] | None = None,
) -> str:
    """The file as it is at `step`: markers removed, regions kept or dropped.

    With `practice_hints` (exercise id -> hint), those exercises of this step become stubs.
    With `answers` (exercise id -> code), those exercises get that code instead (a learner's
    answer, right or wrong, put where the solution was).
    """
    out: list[str] = []
    stack: list[Region] = []
    stubbed: set[int] = set()
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if match := MARKER.match(line.rstrip("\r\n")):
            _open_or_close(stack, match["body"], match["indent"], number, where)
            continue
        if not all(r.first <= step <= r.last for r in stack):
            continue
        if any(r.kind == "only" for r in stack):
            line = _uncomment(line, number, where)
        stub = _exercise_stub(stack, step, practice_hints, answers)
        if stub is not None:
            region_line = next(r.line for r in stack if r.kind == "exercise")
            if region_line not in stubbed:
                stubbed.add(region_line)
                out.append(stub)
            continue
        out.append(line)
    if stack:
        raise MarkerError(f"{where}:{stack[-1].line}: region opened here is never closed")
    return "".join(out)


def _open_or_close(stack: list[Region], body: str, indent: str, number: int, where: str) -> None:
    region = parse_marker(body, indent, number, where)
    if region is None:
        if not stack:
            raise MarkerError(f"{where}:{number}: `# [end]` without an open region")
        stack.pop()
        return
    if region.kind == "exercise" and any(r.kind == "exercise" for r in stack):
        raise MarkerError(f"{where}:{number}: exercises cannot be nested")
    stack.append(region)


def _uncomment(line: str, number: int, where: str) -> str:
    if not line.strip():
        return line
    match = COMMENTED.match(line.rstrip("\r\n"))
    if match is None:
        raise MarkerError(f"{where}:{number}: lines of an `only` region must start with `#| `")
    ending = line[len(line.rstrip("\r\n")) :]
    return match["indent"] + match["code"] + ending


def _exercise_stub(
    stack: list[Region], step: int, hints: Mapping[str, str] | None,
    answers: Mapping[str, str] | None = None,
) -> str | None:
    exercises = [r for r in stack if r.kind == "exercise"]
    if not exercises or exercises[0].first != step:
        return None
    region = exercises[0]
    if answers and region.exercise in answers:
        code = textwrap.dedent(answers[region.exercise]).strip("\n")
        return textwrap.indent(code, region.indent, lambda line: bool(line.strip())) + "\n"
    if hints is None or region.exercise not in hints:
        return None  # only the exercises asked for become stubs
    message = f"exercise {region.exercise}: {hints[region.exercise]}"
    return f"{region.indent}raise NotImplementedError({message!r})\n"


def exercises_in(text: str, where: str) -> list[str]:
    """Every exercise id that `text` declares, in order."""
    found: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if match := MARKER.match(line):
            region = parse_marker(match["body"], match["indent"], number, where)
            if region is not None and region.kind == "exercise":
                found.append(region.exercise)
    return found
