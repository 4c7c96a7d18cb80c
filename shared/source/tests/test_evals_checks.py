"""Protocol checks come before any verdict, and judges see a frozen copy of the run."""

from typing import Any

import pytest

from course.evals.cases import Expect
from course.evals.driver_client import Observation
from course.evals.judges import JudgeView, judge_view, run_judges
from course.evals.outcomes import Check, infra, verdict
from course.evals.protocol_checks import check_protocol

STEP = 14


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 0}


def reply(text: str = "", *calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "toolCall", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    return {"role": "assistant", "content": blocks, "stopReason": "toolUse" if calls else "stop"}


NAMES = {"c1": "read", "c2": "edit"}


def result(call: str, text: str = "ok", error: bool = False, name: str = "") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call, "toolName": name or NAMES.get(call, "read"),
            "content": [{"type": "text", "text": text}], "isError": error}


READ = ("c1", "read", {"path": "calc.py"})
EDIT = ("c2", "edit", {"path": "./calc.py"})
GOOD = [user("fix"), reply("Reading.", READ), result("c1"), reply("", EDIT), result("c2"),
        reply("Fixed calc.py.")]


def observed(path: list[dict[str, Any]], terminal: str = "completed", error: str | None = None,
             session: list[dict[str, Any]] | None = None) -> Observation:
    return Observation(step=14, terminal=terminal, error=error, transcript=tuple(path),
                       session=None if session is None else tuple(session))


def failed(path: list[dict[str, Any]], **kwargs: Any) -> list[str]:
    checks = check_protocol(observed(path, **kwargs), Expect())
    return [check.name for check in checks if not check.passed]


def test_a_well_formed_run_passes_every_protocol_check() -> None:
    assert failed(GOOD) == []
    assert failed(GOOD, session=GOOD) == []


@pytest.mark.parametrize(("path", "broken"), [
    ([user("x"), reply("", READ), reply("late")], ["results_paired", "results_follow_calls"]),
    ([user("x"), reply("", READ), result("c1"), result("c1"), reply("done")], ["results_paired"]),
    ([user("x"), reply("", READ), reply("oops"), result("c1")],
     ["results_paired", "no_orphan_results", "results_follow_calls"]),
    ([user("x"), result("c9"), reply("done")], ["no_orphan_results"]),
])
def test_every_call_has_exactly_one_result_in_its_own_turn(
    path: list[dict[str, Any]], broken: list[str]
) -> None:
    assert failed(path) == broken


@pytest.mark.parametrize(("path", "broken"), [
    ([user("x"), reply("", READ, EDIT), user("steer"), result("c1"), result("c2"), reply("ok")],
     ["results_follow_calls"]),
    ([user("x"), reply("", READ, EDIT), result("c2"), result("c1"), reply("ok")],
     ["results_follow_calls"]),
    ([user("x"), reply("", READ), result("c1", name="edit"), reply("ok")], ["tool_names_match"]),
    ([user("x"), {**reply("", READ), "stopReason": "stop"}, result("c1"), reply("ok")],
     ["stop_reasons_consistent"]),
    ([user("x"), {**reply("no calls"), "stopReason": "toolUse"}], ["stop_reasons_consistent"]),
])
def test_results_follow_their_calls_in_order_with_their_names_and_stop_reasons_agree(
    path: list[dict[str, Any]], broken: list[str]
) -> None:
    assert failed(path) == broken


def test_an_error_or_aborted_reply_may_end_with_or_without_calls() -> None:
    cut = {**reply("", READ), "stopReason": "aborted"}
    assert failed([user("x"), cut, result("c1")]) == []
    assert failed([user("x"), {**reply("partial"), "stopReason": "error"}]) == []


def test_the_transcript_must_equal_the_sessions_active_path() -> None:
    assert failed(GOOD, session=GOOD[:-1]) == ["session_matches"]


def test_only_a_declared_error_is_an_acceptable_ending() -> None:
    assert failed(GOOD, terminal="max_turns", error="max_turns_exceeded") == ["terminal_expected"]
    expect = Expect(terminal="max_turns", error_contains="max_turns_exceeded")
    checks = check_protocol(observed(GOOD, "max_turns", "max_turns_exceeded: 2"), expect)
    assert all(check.passed for check in checks)


def judged(judges: list[dict[str, Any]], path: list[dict[str, Any]] = GOOD,
           files: dict[str, str | None] | None = None) -> list[bool]:
    view = judge_view(path, files or {})
    return [check.passed for check in run_judges(judges, view, {})]


def test_trajectory_predicates() -> None:
    assert judged([{"read_before_edit": "calc.py"}, {"tool_called": "edit"},
                   {"no_tool_errors": True},
                   {"final_text_contains": "Fixed"}, {"text_in_path": "Reading"},
                   {"text_not_in_path": "secret"}, {"user_said": "fix"},
                   {"roles": "user assistant toolResult assistant toolResult assistant"}]) == [
        True] * 8
    edited_blind = [user("fix"), reply("", EDIT), result("c2"), reply("", READ), result("c1"),
                    reply("done")]
    assert judged([{"read_before_edit": "calc.py"}], edited_blind) == [False]
    with_error = [user("x"), reply("", READ), result("c1", "Refused: outside", True), reply("k")]
    assert judged([{"no_tool_errors": True}, {"tool_error_contains": "outside"},
                   {"tool_result_contains": "outside"}], with_error) == [False, True, False]
    assert judged([{"tool_result_contains": "ok"}]) == [True]


def test_file_judges_read_the_declared_files() -> None:
    files = {"calc.py": "return a + b\n", "gone.py": None}
    assert judged([{"file_equals": {"path": "calc.py", "text": "return a + b\n"}},
                   {"file_contains": {"path": "calc.py", "text": "a + b"}},
                   {"file_contains": {"path": "gone.py", "text": ""}}], files=files) == [
        True, True, False]


def test_the_judges_view_is_a_frozen_deep_copy() -> None:
    path = [user("fix"), reply("Done.")]
    view = judge_view(path, {"a.py": "x"})
    path[1]["content"][0]["text"] = "changed afterwards"
    assert view.path[1]["content"][0]["text"] == "Done."
    with pytest.raises(TypeError):
        view.path[1]["role"] = "user"  # type: ignore[index]
    with pytest.raises(TypeError):
        view.files["a.py"] = "y"  # type: ignore[index]
    assert isinstance(view.path, tuple) and isinstance(view.path[1]["content"], tuple)


def test_protocol_failures_come_before_any_judgement() -> None:
    broken = (Check("results_paired", False, "call c1 has 0 results"),)
    judges = (Check("file_contains", False),)
    assert verdict("c", 8, broken, judges, {}).status == "protocol_failed"
    assert verdict("c", 8, (), judges, {}).status == "task_failed"
    assert verdict("c", 8, (Check("results_paired", True),), (), {}).status == "passed"


def test_a_practice_stub_crash_names_the_exercise() -> None:
    error = "NotImplementedError: exercise 06-turns: Loop at most max_turns times"
    outcome = infra("plain", 6, "execute", "agent_crashed", error)
    assert (outcome.status, outcome.phase, outcome.code, outcome.exercise) == (
        "infra_failed", "execute", "agent_crashed", "06-turns")
    assert infra("plain", 6, "execute", "agent_crashed", "KeyError: 'x'").exercise is None


def test_extra_judges_get_the_same_view() -> None:
    seen: list[JudgeView] = []

    def spy(arg: Any, view: JudgeView) -> Check:
        seen.append(view)
        return Check("command", arg == "python t.py")

    view = judge_view(GOOD, {})
    assert run_judges([{"command": "python t.py"}], view, {"command": spy})[0].passed
    assert seen == [view]


def test_a_result_missing_from_the_compacted_part_of_the_history_is_still_caught() -> None:
    summary = {"role": "compactionSummary", "summary": "s", "tokensBefore": 9, "timestamp": 0}
    active = [summary, reply("Done.")]
    lost = [user("x"), reply("", READ), reply("Done.")]  # c1's result was never recorded
    observation = Observation(step=14, terminal="completed", transcript=tuple(active),
                              session=tuple(active), history=tuple(lost))
    broken = [c.name for c in check_protocol(observation, Expect()) if not c.passed]
    assert broken == ["results_paired", "results_follow_calls"]
    whole = [user("x"), reply("", READ), result("c1"), reply("Done.")]
    kept = Observation(step=14, terminal="completed", transcript=tuple(active),
                       session=tuple(active), history=tuple(whole))
    assert all(c.passed for c in check_protocol(kept, Expect()))
