"""The agent loop: Pi's event shapes, paired results in call order, clean stops."""

import asyncio
import json

import pytest
from fakes import Tally, work_tool
from pydantic import ValidationError

from mock_model import MockModel, fail, text, tool_call, turn
from pi.agent import LoopConfig, LoopResult, ToolRegistry, run_loop
from pi.ai import (
    AbortController,
    AppMessage,
    MockProvider,
    Model,
    Providers,
    ToolCall,
    UserMessage,
)
from pi.ai.model import empty_reply
from pi.ai.stream import produce

STEP = 6
MOCK = Model(id="mock-1", api="mock", provider="mock")


def config(mock: MockModel, *tools, **options) -> LoopConfig:
    providers = Providers({"mock": MockProvider(mock)})
    return LoopConfig(model=MOCK, stream=providers.stream, tools=ToolRegistry(tools), **options)


def run(cfg: LoopConfig, prompt: str = "go", history=(), controller=None, on_event=None):
    events: list = []
    controller = controller or AbortController()

    def emit(event) -> None:
        events.append(event)
        if on_event:
            on_event(event, controller)

    prompts = [UserMessage(content=prompt, timestamp=0)]
    result = asyncio.run(run_loop(prompts, list(history), cfg, emit, controller.signal))
    return events, result


def label(event) -> str:
    message = getattr(event, "message", None)
    role = getattr(message, "role", "")
    ident = getattr(event, "tool_call_id", "") or getattr(message, "tool_call_id", "")
    return " ".join(part for part in (event.type, role, ident) if part)


def paired(messages) -> bool:
    calls = [b.id for m in messages if m.role == "assistant" for b in m.content
             if isinstance(b, ToolCall)]
    results = [m.tool_call_id for m in messages if m.role == "toolResult"]
    return calls == results


def mixed_batch() -> MockModel:
    return MockModel([
        turn(tool_call("slow", {"x": 6}, id="c1"), tool_call("nope", {"x": 1}, id="c2"),
             tool_call("fast", {"x": 1}, id="c3"), tool_call("fast", {"x": "no"}, id="c4"),
             tool_call("fast", {"x": -1}, id="c5")),
        turn(text("done")),
    ])


def test_a_plain_reply_has_the_same_event_types_as_pi(data_dir) -> None:
    traces = json.loads((data_dir / "pi-reference/expected/agent-loop-traces.json").read_text())
    pi_plain = next(s for s in traces["scenarios"] if s["name"] == "plain-text-reply")
    events, _ = run(config(MockModel([turn(text("Hello there, friend"))])))
    ours = [e.type for e in events if e.type != "message_update"]
    assert ours == [e["type"] for e in pi_plain["events"] if e["type"] != "message_update"]


def test_a_failed_reply_ends_the_run_like_pi(data_dir) -> None:
    traces = json.loads((data_dir / "pi-reference/expected/agent-loop-traces.json").read_text())
    pi_error = next(s for s in traces["scenarios"] if s["name"] == "llm-error")
    events, result = run(config(MockModel([fail("server_error")])))
    assert [e.type for e in events] == [e["type"] for e in pi_error["events"]]
    assert result.messages[-1].stop_reason == "error"


def test_tool_results_follow_the_models_call_order_whatever_order_they_finish(data_dir) -> None:
    tally = Tally()
    events, _ = run(config(mixed_batch(), work_tool(tally, "slow"), work_tool(tally, "fast")))
    turn_end = next(e for e in events if e.type == "turn_end")
    assert [r.tool_call_id for r in turn_end.tool_results] == ["c1", "c2", "c3", "c4", "c5"]
    assert tally.log.index("end c3") < tally.log.index("end c1"), "c3 really finished first"
    traces = json.loads((data_dir / "pi-reference/expected/agent-loop-traces.json").read_text())
    pi_parallel = next(s for s in traces["scenarios"] if s["name"] == "parallel-tools-mixed")
    pi_order = next(e for e in pi_parallel["events"] if e["type"] == "turn_end")["toolResults"]
    assert [r.split(":")[0] for r in pi_order] == ["c2", "c4", "c1", "c3", "c5"], (
        "real Pi puts failed preparations first; we keep the model's order")


def test_every_tool_call_has_exactly_one_result_and_errors_are_results() -> None:
    tally = Tally()
    _, result = run(config(mixed_batch(), work_tool(tally, "slow"), work_tool(tally, "fast")))
    assert paired(result.messages)
    errors = {m.tool_call_id: m.is_error for m in result.messages if m.role == "toolResult"}
    assert errors == {"c1": False, "c2": True, "c3": False, "c4": True, "c5": True}


def test_the_event_sequence_of_a_tool_round_trip(text_snapshot) -> None:
    mock = MockModel([turn(text("Working."), tool_call("work", {"x": 1}, id="w1")),
                      turn(text("All done."))])
    events, _ = run(config(mock, work_tool(Tally())))
    text_snapshot("\n".join(label(e) for e in events) + "\n", "events.txt")


def test_independent_calls_run_at_the_same_time() -> None:
    tally = Tally()
    mock = MockModel([turn(*(tool_call("work", {"x": 3}) for _ in range(3))), turn(text("ok"))])
    run(config(mock, work_tool(tally)))
    assert tally.peak == 3


def test_an_exclusive_tool_runs_alone() -> None:
    tally = Tally()
    mock = MockModel([turn(tool_call("work", {"x": 3}, id="a"), tool_call("solo", {"x": 3}, id="b"),
                           tool_call("work", {"x": 3}, id="c")), turn(text("ok"))])
    run(config(mock, work_tool(tally), work_tool(tally, "solo", exclusive=True)))
    assert tally.log == ["start a", "end a", "start b", "end b", "start c", "end c"]


def test_a_reply_cut_at_the_length_limit_runs_no_tools_but_pairs_every_call() -> None:
    tally = Tally()
    mock = MockModel([turn(tool_call("work", {"x": 1}), stop_reason="length")])
    events, result = run(config(mock, work_tool(tally)))
    assert tally.log == [] and paired(result.messages)
    assert "stopReason 'length'" in result.messages[-1].content[0].text
    assert len(mock.requests) == 1 and events[-1].type == "agent_end"


def abort_after_the_tool_call(event, controller) -> None:
    if event.type == "message_update" and event.event.type == "toolcall_end":
        controller.abort()


@pytest.mark.parametrize(("reply", "on_event", "reason"), [
    (fail("server_error", tool_call("work", {"x": 1}, id="w")), None, "error"),
    (turn(tool_call("work", {"x": 1}, id="w"), text("more to come")),
     abort_after_the_tool_call, "aborted"),
], ids=["error", "aborted"])
def test_a_failed_or_aborted_reply_runs_no_tools_but_pairs_every_call(reply, on_event,
                                                                      reason) -> None:
    tally = Tally()
    mock = MockModel([reply, turn(text("never asked"))])
    events, result = run(config(mock, work_tool(tally)), on_event=on_event)
    assert result.messages[1].stop_reason == reason
    assert tally.log == [] and paired(result.messages) and len(mock.requests) == 1
    assert [label(e) for e in events if e.type.startswith("tool_execution")] == [
        "tool_execution_start w", "tool_execution_end w"], "a skipped call starts and ends"


def test_every_request_offers_the_tools_and_a_run_without_tools_offers_none() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 1})), turn(text("done"))])
    run(config(mock, work_tool(Tally()), work_tool(Tally(), "solo")))
    assert [[t["name"] for t in r["tools"]] for r in mock.requests] == [["work", "solo"]] * 2
    bare = MockModel([turn(text("hi"))])
    providers = Providers({"mock": MockProvider(bare)})
    run(LoopConfig(model=MOCK, stream=providers.stream))
    assert "tools" not in bare.requests[0]


def test_tool_events_name_the_call_its_arguments_its_progress_and_its_result() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 1}, id="w"), tool_call("work", {"x": -1},
                                                                          id="v")),
                      turn(text("done"))])
    events, _ = run(config(mock, work_tool(Tally())))
    starts = [(e.tool_call_id, e.tool_name, e.args) for e in events
              if e.type == "tool_execution_start"]
    assert starts == [("w", "work", {"x": 1}), ("v", "work", {"x": -1})]
    update = next(e for e in events if e.type == "tool_execution_update")
    assert (update.tool_call_id, update.tool_name, update.args) == ("w", "work", {"x": 1})
    assert update.partial_result.content[0].text == "w working"
    ends = [e for e in events if e.type == "tool_execution_end"]
    assert [(e.tool_call_id, e.tool_name, e.is_error) for e in ends] == [
        ("w", "work", False), ("v", "work", True)]
    assert ends[0].result.content[0].text == "work(1) done"


def test_every_streamed_update_carries_the_stream_event_that_caused_it() -> None:
    events, _ = run(config(MockModel([turn(text("Hello there, friend"))])))
    updates = [e for e in events if e.type == "message_update"]
    assert updates and all(u.event.partial == u.message for u in updates)
    assert {u.event.type for u in updates} >= {"text_start", "text_delta", "text_end"}


def test_a_reply_that_fails_before_it_starts_is_still_announced_once() -> None:
    def broken_stream(model, context, options):
        async def pump(out) -> None:
            raise ConnectionError("no route to the model")

        return produce(pump, empty_reply(model, options))

    events, result = run(LoopConfig(model=MOCK, stream=broken_stream))
    assert [label(e) for e in events] == [
        "agent_start", "turn_start", "message_start user", "message_end user",
        "message_start assistant", "message_end assistant", "turn_end assistant", "agent_end"]
    assert result.messages[-1].stop_reason == "error"


def test_the_default_turn_limit_is_fifty() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 0})) for _ in range(55)])
    _, result = run(config(mock, work_tool(Tally())))
    assert len(mock.requests) == 50 and result.error is not None and "50 turns" in result.error


def test_one_abort_reaches_the_running_tool_and_the_call_not_yet_started_and_ends_the_run() -> None:
    tally = Tally()
    mock = MockModel([turn(tool_call("work", {"x": 50}), tool_call("work", {"x": 50})),
                      turn(text("never asked"))])

    def abort_when_tools_start(event, controller) -> None:
        if event.type == "tool_execution_update":
            controller.abort()

    _, result = run(config(mock, work_tool(tally)), on_event=abort_when_tools_start)
    results = [m for m in result.messages if m.role == "toolResult"]
    assert [r.content[0].text for r in results] == ["work aborted", "Operation aborted"]
    assert len(mock.requests) == 1, "no model request after the abort"


def test_an_abort_while_the_model_streams_ends_the_reply_aborted() -> None:
    mock = MockModel([turn(text("a long answer that will not finish"))])

    def abort_on_first_delta(event, controller) -> None:
        if event.type == "message_update":
            controller.abort()

    _, result = run(config(mock), on_event=abort_on_first_delta)
    assert result.messages[-1].stop_reason == "aborted"


def test_the_turn_limit_ends_the_run_with_a_named_error() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 0})) for _ in range(5)])
    _, result = run(config(mock, work_tool(Tally()), max_turns=3))
    assert isinstance(result, LoopResult) and len(mock.requests) == 3
    assert result.error is not None and result.error.startswith("max_turns_exceeded")
    assert paired(result.messages) and result.unsent == ()


def test_the_run_returns_what_it_added_and_leaves_the_history_alone() -> None:
    history = [UserMessage(content="earlier", timestamp=0)]
    events, result = run(config(MockModel([turn(text("hi"))])), history=history)
    assert len(history) == 1
    assert events[-1].messages == result.messages
    assert [m.role for m in result.messages] == ["user", "assistant"]


def test_application_messages_stay_in_history_but_never_reach_the_model() -> None:
    mock = MockModel([turn(text("hi"))])
    note = AppMessage.model_validate({"role": "bashExecution", "command": "ls", "output": ""})
    run(config(mock), history=[note])
    assert [m["role"] for m in mock.requests[0]["messages"]] == ["user"]


def test_every_request_holds_the_whole_context() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 0})) for _ in range(3)] + [turn(text("ok"))])
    history = [UserMessage(content="earlier", timestamp=0)]
    run(config(mock, work_tool(Tally())), history=history)
    assert [len(r["messages"]) for r in mock.requests] == [2, 4, 6, 8]
    assert mock.requests[3]["messages"][:6] == mock.requests[2]["messages"]


def test_a_history_message_no_model_can_read_is_refused_before_any_request() -> None:
    mock = MockModel([turn(text("hi"))])
    with pytest.raises(ValidationError, match="timestamp"):
        run(config(mock), history=[{"role": "user", "content": "no timestamp"}])
    assert mock.requests == []


def test_the_system_prompt_and_tools_lead_the_request_as_a_system_message_never_recorded() -> None:
    mock = MockModel([turn(text("ok"))])
    _, result = run(config(mock, work_tool(Tally()), system_prompt="Be brief."))
    request = mock.requests[0]
    assert request["systemPrompt"] == "Be brief." and [t["name"] for t in request["tools"]] == [
        "work"]
    assert [m.role for m in result.messages] == ["user", "assistant"]


def test_a_transcript_that_starts_with_a_system_message_sends_its_own_prompt() -> None:
    from pi.ai import SystemMessage

    mock = MockModel([turn(text("ok"))])
    session = SystemMessage(content="From the session.", timestamp=0)
    run(config(mock, system_prompt="From the config."), history=[session])
    assert mock.requests[0]["systemPrompt"] == "From the session."
    assert "tools" not in mock.requests[0]


def test_after_an_abort_each_call_not_yet_started_gets_an_operation_aborted_result() -> None:
    tally = Tally()
    calls = [tool_call("solo", {"x": 50}, id="a"), tool_call("work", {"x": 1}, id="b"),
             tool_call("work", {"x": 1}, id="c")]
    mock = MockModel([turn(*calls), turn(text("never"))])

    def abort_while_a_runs(event, controller) -> None:
        if event.type == "tool_execution_update":
            controller.abort()

    _, result = run(config(mock, work_tool(tally), work_tool(tally, "solo", exclusive=True)),
                    on_event=abort_while_a_runs)
    results = [m for m in result.messages if m.role == "toolResult"]
    assert [(m.tool_call_id, m.is_error) for m in results] == [
        ("a", True), ("b", True), ("c", True)]
    assert [m.content[0].text for m in results[1:]] == ["Operation aborted"] * 2
    assert tally.log == ["start a"]
