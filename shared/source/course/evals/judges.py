"""Judges: did the agent do the task? Decided on a frozen view, never on the live run.

A judge sees exactly two things: the active path (the messages the run ended with) and the
files the case declared, read from the workspace after the run. Both are deep copies frozen
into read-only mappings and tuples, so a judge cannot "fix" what it grades or leak a change
into the next judge. Judges that need more, running the fixture's tests (`command`) or asking
a model (`model_graded`), are passed in by the harness (see `graders.py`); the pure ones
are in `predicates.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from course.evals.outcomes import Check
from course.evals.predicates import PURE, Judge, JudgeView


def freeze(value: Any) -> Any:
    """A deep, read-only copy: dicts become mappingproxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    return value


def judge_view(path: Sequence[Mapping[str, Any]], files: Mapping[str, str | None],
               rpc: Sequence[Mapping[str, Any]] = ()) -> JudgeView:
    return JudgeView(freeze(list(path)), freeze(dict(files)), freeze(list(rpc)))


JUDGE_KINDS = (*PURE, "command", "model_graded")
MAPPING_ARGS = {"file_equals": ("path", "text"), "file_contains": ("path", "text"),
                "model_graded": ("rubric",), "rpc_response": ("command", "text")}


def arg_problem(kind: str, arg: Any) -> str | None:
    """What is wrong with a judge's argument, checked when the case is loaded."""
    keys = MAPPING_ARGS.get(kind)
    if keys is not None:
        ok = isinstance(arg, Mapping) and all(isinstance(arg.get(k), str) for k in keys)
        return None if ok else f"{kind}: expected a mapping with {' and '.join(keys)}"
    expected = bool if kind == "no_tool_errors" else str
    return None if isinstance(arg, expected) else f"{kind}: expected a {expected.__name__}"


def run_judges(judges: Sequence[Mapping[str, Any]], view: JudgeView,
               extra: Mapping[str, Judge]) -> tuple[Check, ...]:
    """Every judge of the case, in order; `extra` supplies `command` and `model_graded`."""
    chosen = {**PURE, **extra}
    return tuple(chosen[kind](arg, view) for judge in judges for kind, arg in judge.items())
