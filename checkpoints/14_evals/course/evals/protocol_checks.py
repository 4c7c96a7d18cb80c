"""Protocol checks: the rules every run must keep, checked before anyone judges the task.

A run that "fixed the bug" but left a tool call without its result has a transcript no real
provider would accept on the next request; a runtime whose memory differs from its session file
will resume into a different conversation than the one the user saw. Those are not task
failures: they are broken agents, and they are reported as such, before any judge runs.

- every tool call has exactly one result, and it arrives in the same turn: after its
  assistant message and before the next assistant message;
- no result answers a call that was not made in that turn;
- nothing comes between a reply's tool calls and their results, which follow in call order,
  each carrying its call's `toolName`;
- a reply's stop reason agrees with its content: `toolUse` exactly when it calls tools;
- the transcript the runtime holds equals the session's active path (once there is a session);
- the run ended in a terminal state: `completed`, or the error the case declares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from course.evals.cases import Expect
from course.evals.driver_client import Observation
from course.evals.outcomes import Check, tool_calls

Path = Sequence[Mapping[str, Any]]


def call_ids(message: Mapping[str, Any]) -> list[str]:
    return [call_id for call_id, _ in tool_calls(message)]


def turns(path: Path) -> list[tuple[list[str], list[str]]]:
    """(call ids of an assistant message, result ids after it); first ([], results before any)."""
    found: list[tuple[list[str], list[str]]] = [([], [])]
    for message in path:
        if message.get("role") == "assistant":
            found.append((call_ids(message), []))
        elif message.get("role") == "toolResult":
            found[-1][1].append(str(message.get("toolCallId")))
    return found


def results_paired(path: Path) -> Check:
    for calls, results in turns(path):
        counts = Counter(results)
        for call in calls:
            if counts[call] != 1:
                return Check("results_paired", False, f"call {call} has {counts[call]} results")
    return Check("results_paired", True)


def no_orphan_results(path: Path) -> Check:
    for calls, results in turns(path):
        for result in results:
            if result not in calls:
                return Check("no_orphan_results", False, f"result {result} answers no call")
    return Check("no_orphan_results", True)


def results_follow_calls(path: Path) -> Check:
    """Right after a reply with N calls come exactly its N results, in the model's order."""
    for index, message in enumerate(path):
        calls = tool_calls(message) if message.get("role") == "assistant" else []
        following = path[index + 1: index + 1 + len(calls)]
        for (call_id, _), after in zip(calls, following, strict=False):
            if after.get("role") != "toolResult":
                return Check("results_follow_calls", False,
                             f"a {after.get('role')} message comes before the result of {call_id}")
        got = [str(m.get("toolCallId")) for m in following]
        if got != [call_id for call_id, _ in calls][: len(got)]:
            return Check("results_follow_calls", False,
                         f"results in the order {', '.join(got)}, not the call order")
    return Check("results_follow_calls", True)


def tool_names_match(path: Path) -> Check:
    """Each result names the tool of the call it answers."""
    names = {call_id: name for m in path if m.get("role") == "assistant"
             for call_id, name in tool_calls(m)}
    for message in path:
        call_id = str(message.get("toolCallId"))
        if message.get("role") == "toolResult" and call_id in names and \
                message.get("toolName") != names[call_id]:
            return Check("tool_names_match", False, f"result of {call_id} names "
                         f"{message.get('toolName')!r}, its call {names[call_id]!r}")
    return Check("tool_names_match", True)


def stop_reasons_consistent(path: Path) -> Check:
    """`toolUse` with tool calls, `stop` without; error, aborted and length may end anyhow."""
    for message in path:
        if message.get("role") != "assistant":
            continue
        reason, calls = message.get("stopReason"), bool(tool_calls(message))
        if (reason == "toolUse" and not calls) or (reason == "stop" and calls):
            what = "no tool call" if calls is False else "tool calls"
            return Check("stop_reasons_consistent", False, f"stopReason {reason} with {what}")
    return Check("stop_reasons_consistent", True)


def session_matches(observation: Observation) -> Check:
    if observation.session is None:
        return Check("session_matches", True, "no session before step 09")
    same = observation.transcript == observation.session
    return Check("session_matches", same, "" if same else "transcript differs from the session")


def terminal_expected(observation: Observation, expect: Expect) -> Check:
    terminal, error = observation.terminal, observation.error or ""
    ok = terminal == expect.terminal and (expect.error_contains or "") in error
    want = expect.terminal + (f" ({expect.error_contains})" if expect.error_contains else "")
    return Check("terminal_expected", ok, "" if ok else f"ended {terminal}, expected {want}")


PATH_CHECKS = (results_paired, no_orphan_results, results_follow_calls, tool_names_match,
               stop_reasons_consistent)


def on_every_path(check: Callable[[Path], Check], paths: Sequence[Path]) -> Check:
    """The check on each path (the first that fails, or the first result)."""
    results = [check(path) for path in paths]
    return next((result for result in results if not result.passed), results[0])


def check_protocol(observation: Observation, expect: Expect) -> tuple[Check, ...]:
    """All protocol checks, in a fixed order, on the active path and the whole history.

    The history (every message root → leaf, step 09 on) includes what a compaction
    summarised away: a result dropped there is hidden from the active path, not from it.
    """
    paths = [observation.active_path]
    if observation.history is not None:
        paths.append(observation.history)
    return (*(on_every_path(check, paths) for check in PATH_CHECKS),
            session_matches(observation), terminal_expected(observation, expect))
