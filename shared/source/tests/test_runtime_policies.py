"""The Runtime's policies, event by event: retry, compaction, subscriptions, models.

Each test states one rule of the runtime through its public methods and events: what a retry
announces, what an abort during its wait does, when the agent's messages are replaced by the
session's context, and that nothing more is attempted once the session cannot be written.
"""

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from mock_model import MockModel, fail, text, tool_call, turn
from pi.ai import AssistantMessage, MockProvider, Model, Providers, Usage
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import (
    CompactionEntry,
    SessionError,
    fixed_clock,
    sequential_ids,
)
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.writer import open_text
from pi.modes.print_mode import event_json

STEP = 13
SMALL = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)


def make_runtime(tmp_path: Path, mock: MockModel, window: int = 200_000, **options) -> Runtime:
    sleep = options.pop("sleep", None)

    async def no_wait(ms: int) -> None:
        pass

    config = RuntimeConfig(
        cwd=tmp_path, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock", context_window=window),
        clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
        session_file=tmp_path / "session.jsonl", agent_dir=tmp_path / "agent",
        system_prompt="You are a test agent.", sleep=sleep or no_wait, **options)
    return Runtime(config)


def recorded(runtime: Runtime, kind: str) -> list:
    events: list = []
    runtime.subscribe(lambda e: events.append(e) if e.type == kind else None)
    return events


def session_context(path: Path) -> list:
    loaded = read_session(path)
    return list(build_context(loaded.tree, loaded.tree.leaf_on_load).messages)


def line_budget_opener(lines: int):
    """An opener whose file takes `lines` lines, then fails like a full disk."""
    budget = {"lines": lines}

    def opener(path: Path, mode: str):
        real = open_text(path, mode)

        class Guard:
            closed = False

            def write(self, data: str) -> int:
                if budget["lines"] == 0:
                    raise OSError(28, "No space left on device")
                budget["lines"] -= 1
                return real.write(data)

            def flush(self) -> None:
                real.flush()

            def close(self) -> None:
                real.close()
                Guard.closed = True

        return Guard()

    return opener


def test_an_unsubscribed_listener_hears_nothing_more(tmp_path) -> None:
    runtime = make_runtime(tmp_path, MockModel([turn(text("one")), turn(text("two"))]))
    heard: list[str] = []
    unsubscribe = runtime.subscribe(lambda e: heard.append(e.type))
    asyncio.run(runtime.prompt("a"))
    count = len(heard)
    unsubscribe()
    asyncio.run(runtime.prompt("b"))
    assert count > 0 and len(heard) == count


def test_a_new_model_is_used_for_the_next_request_and_recorded(tmp_path) -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    runtime = make_runtime(tmp_path, mock)
    asyncio.run(runtime.prompt("a"))
    bigger = Model(id="mock-2", api="mock", provider="mock", context_window=300_000)
    runtime.set_model(bigger)
    asyncio.run(runtime.prompt("b"))
    assert [r["model"] for r in mock.requests] == ["mock-1", "mock-2"]
    assert runtime.config.model == bigger
    changes = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()
               if '"model_change"' in line]
    assert [(c["provider"], c["modelId"]) for c in changes] == [("mock", "mock-1"),
                                                                ("mock", "mock-2")]


def test_steering_and_follow_ups_reach_the_model(tmp_path) -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    runtime = make_runtime(tmp_path, mock)
    runtime.steer("steered")
    runtime.follow_up("followed")
    asyncio.run(runtime.prompt("a"))
    assert [m["content"] for m in mock.requests[0]["messages"]] == ["a", "steered"]
    assert mock.requests[1]["messages"][-1]["content"] == "followed"


def test_a_manual_compaction_replaces_the_agents_messages_between_runs(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)), turn(text("## Goal\nsummed up"))])
    runtime = make_runtime(tmp_path, mock, compaction=SMALL)
    asyncio.run(runtime.prompt("x" * 4_000))
    starts, ends = recorded(runtime, "compaction_start"), recorded(runtime,
                                                                        "compaction_end")
    result = asyncio.run(runtime.compact())
    assert isinstance(result, CompactionEntry)
    assert [s.reason for s in starts] == ["manual"]
    assert (ends[0].entry, ends[0].will_retry) == (result, False)
    assert result.tokens_before > 0
    assert [m.role for m in runtime.messages[:2]] == ["system", "compactionSummary"]
    assert list(runtime.messages) == session_context(tmp_path / "session.jsonl")


def test_a_failed_compaction_announces_pis_error_text_and_no_entry(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)),
                      fail("server_error", message="overloaded_error: Overloaded")])
    runtime = make_runtime(tmp_path, mock, compaction=SMALL, auto_retry=False)
    asyncio.run(runtime.prompt("x" * 4_000))
    ends = recorded(runtime, "compaction_end")
    result = asyncio.run(runtime.compact())
    assert result == "Turn prefix summarization failed: overloaded_error: Overloaded"
    assert (ends[0].entry, ends[0].will_retry) == (None, False)
    assert ends[0].error_message == f"Compaction failed: {result}"


def long_run(tmp_path: Path, **options) -> tuple[Runtime, MockModel, list]:
    mock = MockModel([
        turn(text("Hello.")),  # an early exchange: Pi 1.6 compacts only what it can summarise
        turn(text("Noted.")),
        turn(text("## Goal\nremember the early context")),
        turn(text("Listing."), tool_call("ls", {"path": "."})),
        turn(text("## Goal\nlist the folder")),
        turn(text("finished")),
    ])
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=SMALL, **options)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    runtime.compaction = replace(runtime.compaction, enabled=True)
    events: list = []
    runtime.subscribe(events.append)
    asyncio.run(runtime.prompt("please list the folder " + "y" * 400))
    return runtime, mock, events


def test_compactions_before_a_prompt_and_between_turns_are_announced_as_threshold(
        tmp_path) -> None:
    _, mock, events = long_run(tmp_path)
    starts = [e for e in events if e.type == "compaction_start"]
    ends = [e for e in events if e.type == "compaction_end"]
    assert [s.reason for s in starts] == ["threshold", "threshold"]
    assert [e.will_retry for e in ends] == [False, False]
    assert all(e.entry and e.entry.tokens_before > 0 for e in ends)
    first_request = mock.requests[3]["messages"]
    assert "<summary>" in first_request[0]["content"][0]["text"], (
        "compacted before the prompt, the run starts from the summary")


def test_after_a_run_the_agents_messages_are_the_sessions_context(tmp_path) -> None:
    runtime, _, events = long_run(tmp_path)
    turn_ends = [i for i, e in enumerate(events) if e.type == "turn_end"]
    assert len(turn_ends) == 2
    assert list(runtime.messages) == session_context(tmp_path / "session.jsonl")


def test_a_compaction_between_turns_leaves_the_running_agents_messages_alone(tmp_path) -> None:
    seen: list = []
    mock = MockModel([
        turn(text("Hello.")),  # an early exchange: Pi 1.6 compacts only what it can summarise
        turn(text("Noted.")),
        turn(text("## Goal\nremember the early context")),
        turn(text("Listing."), tool_call("ls", {"path": "."})),
        turn(text("## Goal\nlist the folder")),
        turn(text("finished")),
    ])
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=SMALL)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    runtime.compaction = replace(runtime.compaction, enabled=True)
    runtime.subscribe(lambda e: seen.append((e.type, runtime.messages)))
    asyncio.run(runtime.prompt("please list the folder " + "y" * 400))
    between = [i for i, (kind, _) in enumerate(seen) if kind == "compaction_end"][-1]
    assert seen[between][1] == seen[between - 1][1], "no reseed while the run goes on"


def test_the_first_prompt_of_a_session_is_never_compacted(tmp_path) -> None:
    mock = MockModel([turn(text("ok"))])
    runtime = make_runtime(tmp_path, mock, window=100, compaction=SMALL)
    kinds: list[str] = []
    runtime.subscribe(lambda e: kinds.append(e.type))
    asyncio.run(runtime.prompt("hello"))
    assert kinds[0] == "agent_start", "no usage to judge yet, so no compaction before the run"


def test_retry_events_count_attempts_and_report_success(tmp_path) -> None:
    mock = MockModel([fail("rate_limit"), fail("server_error"), turn(text("third time"))])
    runtime = make_runtime(tmp_path, mock)
    starts, ends = recorded(runtime, "auto_retry_start"), recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("hi"))
    assert [(s.attempt, s.max_attempts, s.delay_ms) for s in starts] == [
        (1, 3, 2000), (2, 3, 4000)]
    assert "429" in starts[0].error_message and "500" in starts[1].error_message
    assert [(e.success, e.attempt, e.final_error) for e in ends] == [(True, 2, None)]
    assert list(runtime.messages) == session_context(tmp_path / "session.jsonl")


def test_after_a_retried_run_the_agents_messages_are_the_sessions_context(tmp_path) -> None:
    mock = MockModel([
        turn(text("Hello.")),  # an early exchange: Pi 1.6 compacts only what it can summarise
        turn(text("Noted.")),
        turn(text("## Goal\nremember the early context")),  # before the prompt
        fail("rate_limit"),
        turn(text("Listing."), tool_call("ls", {"path": "."})),  # the retry
        turn(text("## Goal\nlist the folder")),  # between the retry's two turns
        turn(text("finished")),
    ])
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=SMALL)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    runtime.compaction = replace(runtime.compaction, enabled=True)
    ends = recorded(runtime, "compaction_end")
    asyncio.run(runtime.prompt("please list the folder " + "y" * 400))
    assert len(ends) == 2 and runtime.messages[-1].content[0].text == "finished"
    assert list(runtime.messages) == session_context(tmp_path / "session.jsonl")


def test_a_retry_that_ends_in_a_lasting_error_reports_failure(tmp_path) -> None:
    lasting = "invalid max_tokens: 5000 is too large"
    mock = MockModel([fail("rate_limit"), fail("server_error", message=lasting)])
    runtime = make_runtime(tmp_path, mock)
    ends = recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("hi"))
    assert [(e.success, e.attempt, e.final_error) for e in ends] == [(False, 1, lasting)]


def test_exhausted_retries_report_the_last_error(tmp_path) -> None:
    mock = MockModel([fail("server_error", message=f"500 failure number {n}") for n in range(4)])
    runtime = make_runtime(tmp_path, mock)
    ends = recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("hi"))
    assert [(e.success, e.attempt, e.final_error) for e in ends] == [
        (False, 3, "500 failure number 3")]


def test_a_retry_announces_the_failures_own_message(tmp_path) -> None:
    mock = MockModel([fail("rate_limit", message="429"), turn(text("ok"))])
    runtime = make_runtime(tmp_path, mock)
    starts = recorded(runtime, "auto_retry_start")
    asyncio.run(runtime.prompt("hi"))
    assert [s.error_message for s in starts] == ["429"]


def test_an_abort_during_the_retry_wait_ends_the_retry(tmp_path) -> None:
    mock = MockModel([fail("rate_limit"), turn(text("never asked"))])
    holder: dict = {}

    async def sleep(ms: int) -> None:
        holder["runtime"].abort()

    runtime = make_runtime(tmp_path, mock, sleep=sleep)
    holder["runtime"] = runtime
    ends = recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("hi"))
    assert [(e.success, e.attempt, e.final_error) for e in ends] == [(False, 1, "aborted")]
    assert len(mock.requests) == 1


def test_an_abort_between_runs_does_not_cancel_the_next_retry(tmp_path) -> None:
    mock = MockModel([fail("rate_limit"), turn(text("second time lucky"))])
    runtime = make_runtime(tmp_path, mock)
    runtime.abort()
    ends = recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("hi"))
    assert [(e.success, e.attempt) for e in ends] == [(True, 1)] and len(mock.requests) == 2


def test_no_retry_once_the_session_can_no_longer_be_written(tmp_path) -> None:
    waits: list[int] = []

    async def sleep(ms: int) -> None:
        waits.append(ms)

    mock = MockModel([fail("rate_limit"), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, sleep=sleep, opener=line_budget_opener(5))
    starts = recorded(runtime, "auto_retry_start")
    asyncio.run(runtime.prompt("hi"))
    assert runtime.poisoned is not None
    assert waits == [] and starts == [] and len(mock.requests) == 1


def test_no_compaction_once_the_session_can_no_longer_be_written(tmp_path) -> None:
    mock = MockModel([fail("context_overflow"), turn(text("## Goal\nnever")),
                      turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, opener=line_budget_opener(5))
    starts = recorded(runtime, "compaction_start")
    asyncio.run(runtime.prompt("hi"))
    assert runtime.poisoned is not None and starts == [] and len(mock.requests) == 1


def test_a_model_change_that_cannot_be_written_poisons_the_runtime_too(tmp_path) -> None:
    mock = MockModel([turn(text("first")), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, opener=line_budget_opener(6))
    asyncio.run(runtime.prompt("hi"))  # header, model, level, declaration, user, reply
    with pytest.raises(SessionError):
        runtime.set_model(runtime.config.model)  # the model change cannot be written
    assert runtime.poisoned is not None
    with pytest.raises(RuntimePoisoned):
        asyncio.run(runtime.prompt("again"))
    assert len(mock.requests) == 1


def test_a_failed_write_stops_the_run_before_its_tools(tmp_path) -> None:
    mock = MockModel([turn(tool_call("ls", {"path": "."})), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, opener=line_budget_opener(5))
    ends = recorded(runtime, "tool_execution_end")
    asyncio.run(runtime.prompt("hi"))
    assert runtime.poisoned is not None and len(mock.requests) == 1
    assert [e.is_error for e in ends] == [True], "the call is answered as aborted"


def test_no_retry_of_an_earlier_failure_once_the_session_can_no_longer_be_written(
        tmp_path) -> None:
    waits: list[int] = []

    async def sleep(ms: int) -> None:
        waits.append(ms)

    mock = MockModel([fail("rate_limit"), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, sleep=sleep, opener=line_budget_opener(6),
                           auto_retry=False)
    asyncio.run(runtime.prompt("first"))  # header, model, level, declaration, user, failed reply
    runtime.auto_retry = True
    asyncio.run(runtime.prompt("second"))  # its prompt cannot be written
    assert runtime.poisoned is not None and waits == []


def test_a_context_overflow_is_compacted_announcing_a_retry_then_resumed(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)), fail("context_overflow"),
                      turn(text("## Goal\nkeep going")), turn(text("done after compaction"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    starts, ends = recorded(runtime, "compaction_start"), recorded(runtime,
                                                                        "compaction_end")
    asyncio.run(runtime.prompt("second question"))
    assert [s.reason for s in starts] == ["overflow"]
    assert [e.will_retry for e in ends] == [True] and ends[0].entry
    assert list(runtime.messages) == session_context(tmp_path / "session.jsonl")


def test_an_overflow_whose_summary_fails_ends_with_pis_recovery_failed_text(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)), fail("context_overflow"),
                      fail("server_error", message="boom")])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50),
                           auto_retry=False)
    asyncio.run(runtime.prompt("first question"))
    ends = recorded(runtime, "compaction_end")
    asyncio.run(runtime.prompt("second question"))
    assert [(e.reason, e.entry, e.will_retry) for e in ends] == [("overflow", None, False)]
    assert ends[0].error_message == (  # the cut falls inside the first turn: its prefix's call
        "Context overflow recovery failed: Turn prefix summarization failed: boom")
    assert mock.remaining == 0, "nothing was asked after the failed recovery"


def test_a_failed_overflow_reply_is_left_out_of_every_context_before_the_retry(tmp_path) -> None:
    # Pi 1.6's _omitRecoveryAttempt: a context edit hides the failed reply for good, so the
    # retry never carries it and a later reopening does not show it either.
    mock = MockModel([turn(text("early answer " * 50)), fail("context_overflow"),
                      turn(text("## Goal\nkeep going")), turn(text("done after compaction"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    asyncio.run(runtime.prompt("second question"))
    lines = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    failed = next(line for line in lines if line.get("message", {}).get("stopReason") == "error")
    edits = [line for line in lines if line["type"] == "context_edit"]
    assert [(e["targetId"], e["replacement"]) for e in edits] == [(failed["id"], None)]
    assert lines.index(edits[0]) < [line["type"] for line in lines].index("compaction")
    assert all(m.get("stopReason") != "error" for m in mock.requests[-1]["messages"])


OVERFLOW_FAILED = ("Context overflow recovery failed after one compact-and-retry attempt. "
                   "Try reducing context or switching to a larger-context model.")
LENGTH_FAILED = "Truncated response recovery failed after one compact-and-retry attempt."


@pytest.mark.parametrize("failure, why", [(fail("context_overflow"), OVERFLOW_FAILED),
                                          (turn(text("cut"), stop_reason="length"), LENGTH_FAILED)])
def test_a_retry_that_fails_the_same_way_ends_the_recovery_with_pis_failure_event(
        tmp_path, failure, why) -> None:
    mock = MockModel([turn(text("early answer " * 50)), failure,
                      turn(text("## Goal\nkeep going")), failure, turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    ends = recorded(runtime, "compaction_end")
    asyncio.run(runtime.prompt("second question"))
    assert [(e.entry is not None, e.will_retry) for e in ends] == [(True, True), (False, False)]
    assert event_json(ends[1]) == {"type": "compaction_end", "reason": "overflow",
                                   "aborted": False, "willRetry": False, "errorMessage": why}
    assert len(mock.requests) == 4, "one compact-and-retry, no second"


def test_a_reply_cut_short_below_the_models_output_limit_is_compacted_and_retried(
        tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)), turn(text("cut"), stop_reason="length"),
                      turn(text("## Goal\nkeep going")), turn(text("the whole answer"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    ends = recorded(runtime, "compaction_end")
    asyncio.run(runtime.prompt("second question"))
    assert [(e.reason, e.will_retry) for e in ends] == [("overflow", True)] and ends[0].entry
    last = runtime.messages[-1]
    assert isinstance(last, AssistantMessage) and last.content[0].text == "the whole answer"


def test_a_reply_cut_at_the_models_output_limit_is_left_as_it_is(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)),
                      turn(text("all it may say"), stop_reason="length", usage={"output": 16_384})])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    starts = recorded(runtime, "compaction_start")
    asyncio.run(runtime.prompt("second question"))
    assert starts == [] and runtime.messages[-1].stop_reason == "length"


def test_a_summary_call_that_fails_transiently_is_retried_after_the_runtimes_waits(
        tmp_path) -> None:
    waits: list[int] = []

    async def sleep(ms: int) -> None:
        waits.append(ms)

    mock = MockModel([turn(text("early answer " * 50)), fail("server_error"),
                      fail("rate_limit"), turn(text("## Goal\nsummed up"))])
    runtime = make_runtime(tmp_path, mock, compaction=SMALL, sleep=sleep)
    asyncio.run(runtime.prompt("x" * 4_000))
    assert isinstance(asyncio.run(runtime.compact()), CompactionEntry)
    assert waits == [2000, 4000] and len(mock.requests) == 4
    mock = MockModel([turn(text("early answer " * 50)), fail("server_error"), turn(text("no"))])
    runtime = make_runtime(tmp_path / "off", mock, compaction=SMALL, sleep=sleep)
    runtime.auto_retry = False  # Pi: summary calls follow the retry setting
    asyncio.run(runtime.prompt("x" * 4_000))
    assert isinstance(asyncio.run(runtime.compact()), str) and len(mock.requests) == 2


def test_a_finished_reply_over_the_window_is_compacted_but_not_continued(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)),
                      turn(text("fine, but big"), usage={"input": 250_000}),
                      turn(text("## Goal\nkeep going")), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    ends = recorded(runtime, "compaction_end")
    asyncio.run(runtime.prompt("second question"))
    assert [(e.reason, e.will_retry) for e in ends] == [("overflow", False)] and ends[0].entry
    assert len(mock.requests) == 3, "the summary was asked for; the finished reply not resumed"


def test_a_run_that_ends_over_the_threshold_is_compacted_after_it(tmp_path) -> None:
    mock = MockModel([turn(text("hi")), turn(text("ok")), turn(text("## Goal\nsummed up"))])
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=SMALL)
    asyncio.run(runtime.prompt("hello"))  # something before the long prompt for the summary
    kinds: list[str] = []
    runtime.subscribe(lambda e: kinds.append(e.reason if e.type == "compaction_start" else e.type))
    asyncio.run(runtime.prompt("x" * 8_000))  # about 2,800 tokens: over 3,000 - 500
    assert kinds[-3:] == ["agent_end", "threshold", "compaction_end"]
    assert [m.role for m in runtime.messages[:2]] == ["system", "compactionSummary"]


def test_abort_hands_back_the_messages_still_queued(tmp_path) -> None:
    runtime = make_runtime(tmp_path, MockModel([]))
    runtime.steer("steered")
    runtime.follow_up("followed")
    assert [m.content for m in runtime.abort()] == ["steered", "followed"]


SLOW_LISTENER = """
import asyncio
from pathlib import Path


def extension(api):
    async def on_end(event):
        await asyncio.sleep(0.01)
        Path(__file__).with_name("seen.txt").write_text(f"agent_end {len(event.messages)}")

    api.on("agent_end", on_end)
"""


def test_a_prompt_returns_only_after_the_extensions_have_handled_its_events(tmp_path) -> None:
    (tmp_path / "slow.py").write_text(SLOW_LISTENER)
    runtime = make_runtime(tmp_path, MockModel([turn(text("ok"))]),
                           extension_paths=(tmp_path / "slow.py",))

    async def prompt_then_look() -> str | None:
        await runtime.prompt("hi")
        seen = tmp_path / "seen.txt"
        return seen.read_text() if seen.exists() else None

    assert asyncio.run(prompt_then_look()) == "agent_end 3"  # the declaration, hi, ok


def test_flush_confirms_the_writes_or_names_the_failure(tmp_path) -> None:
    healthy = make_runtime(tmp_path / "a", MockModel([turn(text("ok"))]))
    asyncio.run(healthy.prompt("hi"))
    asyncio.run(healthy.flush())
    broken = make_runtime(tmp_path / "b", MockModel([turn(text("lost"))]),
                          opener=line_budget_opener(5))
    asyncio.run(broken.prompt("hi"))
    with pytest.raises(RuntimePoisoned, match="No space left"):
        asyncio.run(broken.flush())


def test_close_closes_the_session_file(tmp_path) -> None:
    opener = line_budget_opener(100)
    runtime = make_runtime(tmp_path, MockModel([turn(text("ok"))]), opener=opener)
    asyncio.run(runtime.prompt("hi"))
    asyncio.run(runtime.close())
    with pytest.raises(ValueError, match="closed file"):
        runtime.writer._file.write("more")


def test_a_run_stopped_at_its_turn_limit_is_announced_once_with_the_limit(tmp_path) -> None:
    mock = MockModel([turn(tool_call("ls", {"path": "."})), turn(tool_call("ls", {"path": "."})),
                      turn(text("done"))])
    runtime = make_runtime(tmp_path, mock, max_turns=2)
    limits = recorded(runtime, "turn_limit_reached")
    asyncio.run(runtime.prompt("go"))
    assert [(e.max_turns, "limit of 2 turns" in e.message) for e in limits] == [(2, True)]
    asyncio.run(runtime.prompt("again"))  # a run that ends by itself announces nothing
    assert len(limits) == 1


@pytest.mark.parametrize("send", ["prompt", "steer", "follow_up"])
def test_an_image_for_a_model_that_reads_only_text_is_refused_in_one_line(tmp_path, send) -> None:
    from pi.ai import ImageContent

    runtime = make_runtime(tmp_path, MockModel([turn(text("never asked"))]))
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    with pytest.raises(ValueError, match="does not accept images"):
        result = getattr(runtime, send)("look", (image,))
        if asyncio.iscoroutine(result):
            asyncio.run(result)


def test_abort_retry_during_the_wait_ends_the_retry_as_aborted(tmp_path) -> None:
    runtime: Runtime

    async def sleep(ms: int) -> None:
        runtime.abort_retry()

    mock = MockModel([fail("server_error", message="503 overloaded"), turn(text("too late"))])
    runtime = make_runtime(tmp_path, mock, sleep=sleep)
    ends = recorded(runtime, "auto_retry_end")
    asyncio.run(runtime.prompt("go"))
    assert [(e.success, e.final_error) for e in ends] == [(False, "aborted")]
    assert mock.remaining == 1, "the retry never asked the model again"


def big_reply_then_compaction(tmp_path) -> Runtime:
    """A run whose reply reports more than the threshold: compacted after the run, the reply
    kept, its old usage now measuring the context before the summary."""
    mock = MockModel([turn(text("hi")), turn(text("big answer"), usage={"input": 2_800}),
                      turn(text("## Goal\nsummarised")), fail("server_error", message="bad"),
                      turn(text("small"))])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=5)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings, auto_retry=False)
    asyncio.run(runtime.prompt("hi"))  # something before "first" for the summary to cover
    return runtime


def test_a_failed_reply_after_a_compaction_leaves_the_kept_replys_usage_stale(tmp_path) -> None:
    runtime = big_reply_then_compaction(tmp_path)
    starts = recorded(runtime, "compaction_start")
    asyncio.run(runtime.prompt("first"))
    assert len(starts) == 1
    asyncio.run(runtime.prompt("second"))  # its reply fails: no usage newer than the summary
    assert len(starts) == 1, "the kept reply's old usage started no second compaction"


def test_a_resumed_session_knows_its_kept_replys_usage_is_stale(tmp_path) -> None:
    asyncio.run(big_reply_then_compaction(tmp_path).prompt("first"))
    mock = MockModel([turn(text("resumed"))])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=10_000)
    again = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    starts = recorded(again, "compaction_start")
    asyncio.run(again.prompt("second"))
    assert starts == [] and mock.remaining == 0


def test_a_manual_compaction_with_nothing_to_summarise_says_why_and_records_nothing(
        tmp_path) -> None:
    runtime = make_runtime(tmp_path, MockModel([turn(text("answer")), turn(text("## Goal\nsum"))]),
                           compaction=CompactionSettings(keep_recent_tokens=1))
    assert asyncio.run(runtime.compact()) == "Nothing to compact (session too small)"
    asyncio.run(runtime.prompt("go"))
    assert isinstance(asyncio.run(runtime.compact()), CompactionEntry)
    assert asyncio.run(runtime.compact()) == "Already compacted"
    kinds = [json.loads(line)["type"] for line in
             (tmp_path / "session.jsonl").read_text().splitlines()]
    assert kinds.count("compaction") == 1


def test_usage_is_stale_only_after_a_compaction(tmp_path) -> None:
    runtime = make_runtime(tmp_path, MockModel([fail("server_error", message="bad")]),
                           auto_retry=False)
    assert not runtime.usage_is_stale(), "a new session: nothing to be stale against"
    asyncio.run(runtime.prompt("go"))
    assert not runtime.usage_is_stale(), "no usable reply, but no compaction either"


def test_an_aborted_reply_after_a_compaction_measures_nothing(tmp_path) -> None:
    runtime = big_reply_then_compaction(tmp_path)
    asyncio.run(runtime.prompt("first"))
    runtime.writer.append_message(AssistantMessage(
        content=(), api="mock", provider="mock", model="m", usage=Usage.zero(),
        stop_reason="aborted", timestamp=0))
    assert runtime.usage_is_stale()
