"""A catalogue of scripts covering every feature, reused by the invariant tests.

Each entry is (name, script, split, how many events to let through before aborting or None).
Running all invariants over the whole catalogue catches shape bugs in corners a single
hand-written test would miss.
"""

from __future__ import annotations

from typing import Any

from mock_model import (
    DEFAULT_SPLIT,
    FAILURE_KINDS,
    SINGLE_CHARACTERS,
    WHOLE_BLOCKS,
    FailureKind,
    MockModel,
    SplitPolicy,
    Turn,
    fail,
    text,
    thinking,
    tool_call,
    turn,
)

from .helpers import collect, collect_aborting_after

RICH_TURN = turn(
    thinking("Let me look at the file first.", signature="sig-1"),
    text("I will read a.txt — then edit it."),
    tool_call("read", {"path": "a.txt", "limit": 20}),
    tool_call("bash", {"command": "echo 'héllo' | wc -c"}, id="toolu_fixed"),
)
SPLITS: dict[str, SplitPolicy] = {
    "default": DEFAULT_SPLIT,
    "single": SINGLE_CHARACTERS,
    "whole": WHOLE_BLOCKS,
    "odd": SplitPolicy(sizes=(4, 1, 9)),
}


def _failure_turn(kind: FailureKind) -> Turn:
    return fail(kind, text("Partial answ"), tool_call("read", {"path": "b.txt"}))


SCRIPTS: dict[str, Turn] = {
    "plain_text": turn(text("Hello there, learner!")),
    "empty_text": turn(text("")),
    "no_parts": turn(),
    "thinking_then_text": turn(thinking("Hmm."), text("Done.")),
    "rich": RICH_TURN,
    "length": turn(text("This answer was cut"), stop_reason="length"),
    "usage_override": turn(text("hi"), usage={"input": 1000, "cacheRead": 50}),
    "delayed": turn(text("late"), delay_ms=250),
    **{f"fail_{kind}": _failure_turn(kind) for kind in FAILURE_KINDS},
    "bare_rate_limit": fail("rate_limit"),
}


def scenario_runs() -> dict[str, list[dict[str, Any]]]:
    """Event lists of every script under every split, plus abort, exhaustion and responder."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for script_name, script_turn in SCRIPTS.items():
        for split_name, split in SPLITS.items():
            runs[f"{script_name}/{split_name}"] = collect(MockModel([script_turn], split=split))
    for cut in (1, 2, 5, 9):
        runs[f"abort_after_{cut}"] = collect_aborting_after(MockModel([RICH_TURN]), cut)
    runs["pre_aborted"] = collect(MockModel([RICH_TURN]), signal=_Aborted())
    runs["exhausted"] = collect(MockModel([]))
    responder = MockModel(responder=lambda request, number: turn(text(f"reply {number}")))
    runs["responder"] = collect(responder)
    return runs


class _Aborted:
    aborted = True
