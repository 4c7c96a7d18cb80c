"""The stateful Agent: frozen state, one run at a time, queues that lose nothing."""

import asyncio
import json

import pytest
from fakes import Tally, work_tool

from mock_model import MockModel, text, tool_call, turn
from pi.agent import Agent, AgentBusyError, AgentState, LoopConfig, ToolRegistry
from pi.ai import MockProvider, Model, Providers, UserMessage

STEP = 8
MOCK = Model(id="mock-1", api="mock", provider="mock")


def agent_for(mock: MockModel, *tools) -> Agent:
    providers = Providers({"mock": MockProvider(mock)})
    return Agent(LoopConfig(model=MOCK, stream=providers.stream, tools=ToolRegistry(tools)))


def pi_scenario(data_dir, name: str) -> dict:
    traces = json.loads((data_dir / "pi-reference/expected/agent-loop-traces.json").read_text())
    return next(s for s in traces["scenarios"] if s["name"] == name)


def types_without_updates(events: list[str]) -> list[str]:
    return [e for e in events if e != "message_update"]


def request_texts(mock: MockModel, index: int) -> list[str]:
    out = []
    for m in mock.requests[index]["messages"]:
        content = m["content"]
        first = content if isinstance(content, str) else content[0].get("text", "")
        out.append(f"{m['role']}:{first}")
    return out


def test_the_state_follows_the_run_and_snapshots_never_change() -> None:
    agent = agent_for(MockModel([turn(text("ok"), tool_call("work", {"x": 2}, id="w")),
                                 turn(text("done"))]), work_tool(Tally()))
    seen: list[AgentState] = []
    shown: list[tuple] = []  # what each snapshot's transcript held when it was handed out
    agent.subscribe(lambda event, state: (seen.append(state), shown.append(tuple(state.messages))))
    asyncio.run(agent.prompt("go"))
    assert any(s.streaming_message is not None for s in seen)
    assert any(s.pending_tool_calls == {"w"} for s in seen)
    assert seen[0].messages == (), "the first snapshot did not grow with the run"
    assert [tuple(s.messages) for s in seen] == shown, "a snapshot changed after it was seen"
    final = agent.state
    assert not final.is_running and final.pending_tool_calls == frozenset()
    assert [m.role for m in final.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert isinstance(final.messages, tuple), "the transcript is a tuple, frozen like the state"


def test_a_failing_subscriber_does_not_stop_the_others() -> None:
    agent = agent_for(MockModel([turn(text("hi"))]))
    seen: list[str] = []

    def broken(event, state) -> None:
        raise RuntimeError("listener bug")

    agent.subscribe(broken)
    agent.subscribe(lambda event, state: seen.append(event.type))
    asyncio.run(agent.prompt("go"))
    assert seen[-1] == "agent_end" and agent.listener_failures
    assert agent.listener_failures[0].error == "RuntimeError('listener bug')"


def test_a_second_prompt_while_running_is_refused() -> None:
    agent = agent_for(MockModel([turn(tool_call("work", {"x": 20})), turn(text("done"))]),
                      work_tool(Tally()))

    async def both() -> None:
        first = asyncio.ensure_future(agent.prompt("one"))
        await asyncio.sleep(0)
        with pytest.raises(AgentBusyError):
            await agent.prompt("two")
        await first

    asyncio.run(both())
    assert [m.role for m in agent.state.messages].count("user") == 1


def test_steering_arrives_after_the_tool_calls_and_before_the_next_request() -> None:
    tally = Tally()
    mock = MockModel([turn(tool_call("work", {"x": 3}, id="a"),
                           tool_call("work", {"x": 3}, id="b")),
                      turn(text("changed course"))])
    agent = agent_for(mock, work_tool(tally))
    agent.subscribe(lambda e, s: agent.steer("use the other file")
                    if e.type == "tool_execution_start" and e.tool_call_id == "a" else None)
    asyncio.run(agent.prompt("go"))
    assert tally.log.count("end a") == tally.log.count("end b") == 1, "no tool was skipped"
    assert request_texts(mock, 1)[-1] == "user:use the other file"
    assert [m["role"] for m in mock.requests[1]["messages"]] == [
        "user", "assistant", "toolResult", "toolResult", "user"]


@pytest.mark.parametrize(("mode", "scenario"), [("one-at-a-time", "followups-one-at-a-time"),
                                                ("all", "followups-all")])
def test_follow_ups_wait_until_the_run_would_stop_like_pi(data_dir, mode, scenario) -> None:
    mock = MockModel([turn(text("first")), turn(text("second")), turn(text("third"))])
    agent = agent_for(mock)
    agent.follow_ups.mode = mode
    events: list[str] = []
    agent.subscribe(lambda e, s: events.append(e.type))
    agent.follow_up("follow one")
    agent.follow_up("follow two")
    asyncio.run(agent.prompt("start"))
    expected = [e["type"] for e in pi_scenario(data_dir, scenario)["events"]]
    assert types_without_updates(events) == types_without_updates(expected)
    users = [m.content for m in agent.state.messages if m.role == "user"]
    assert users == ["start", "follow one", "follow two"], "FIFO"


def test_a_follow_up_waits_until_the_model_has_seen_the_tool_results() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 1}, id="w")), turn(text("done")),
                      turn(text("followed"))])
    agent = agent_for(mock, work_tool(Tally()))
    agent.follow_up("and then this")
    asyncio.run(agent.prompt("go"))
    assert len(mock.requests) == 3
    assert [m["role"] for m in mock.requests[1]["messages"]] == ["user", "assistant",
                                                                 "toolResult"]
    assert request_texts(mock, 2)[-1] == "user:and then this"


def test_steering_queued_before_the_prompt_goes_out_with_it_like_pi(data_dir) -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    agent = agent_for(mock)
    events: list[str] = []
    agent.subscribe(lambda e, s: events.append(e.type))
    agent.steer("steer first")
    agent.follow_up("then this")
    asyncio.run(agent.prompt("prompt"))
    expected = [e["type"] for e in
                pi_scenario(data_dir, "steering-queued-before-prompt-and-followup")["events"]]
    assert types_without_updates(events) == types_without_updates(expected)
    assert request_texts(mock, 0) == ["user:prompt", "user:steer first"]


def test_abort_stops_the_run_and_hands_back_every_queued_message_in_order() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 100})), turn(text("never"))])
    agent = agent_for(mock, work_tool(Tally()))
    returned: list = []

    def on_event(event, state) -> None:
        if event.type == "tool_execution_update":
            agent.follow_up("later")
            agent.steer("now")
            agent.steer("also now")
            returned.extend(agent.abort())

    agent.subscribe(on_event)
    asyncio.run(agent.prompt("go"))
    assert [m.content for m in returned] == ["now", "also now", "later"]
    assert len(mock.requests) == 1 and not agent.state.is_running
    assert len(agent.steering) == len(agent.follow_ups) == 0


def test_steering_taken_when_the_turn_limit_hits_goes_back_to_the_queue() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 1})), turn(text("next"))])
    providers = Providers({"mock": MockProvider(mock)})
    agent = Agent(LoopConfig(model=MOCK, stream=providers.stream,
                             tools=ToolRegistry([work_tool(Tally())]), max_turns=1))
    agent.subscribe(lambda e, s: agent.steer("keep this") if e.type == "tool_execution_start"
                    else None)
    result = asyncio.run(agent.prompt("go"))
    assert result.error and result.error.startswith("max_turns_exceeded")
    assert [m.content for m in result.unsent] == ["keep this"]
    assert [m.content for m in agent.abort()] == ["keep this"], "nothing was lost"


def test_the_transcript_carries_over_from_one_prompt_to_the_next() -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    agent = agent_for(mock)
    asyncio.run(agent.prompt("first"))
    asyncio.run(agent.prompt(UserMessage(content="second", timestamp=5)))
    assert [m["role"] for m in mock.requests[1]["messages"]] == [
        "user", "assistant", "user"]


def test_a_failed_run_is_remembered_as_the_last_error() -> None:
    agent = agent_for(MockModel([]))
    asyncio.run(agent.prompt("go"))
    assert "exhausted" in (agent.state.last_error or "")


def test_no_reply_is_still_streaming_once_it_has_ended() -> None:
    agent = agent_for(MockModel([turn(text("done"))]))
    ended: list[AgentState] = []
    agent.subscribe(lambda event, state: ended.append(state) if event.type == "message_end"
                    else None)
    asyncio.run(agent.prompt("go"))
    assert ended and all(s.streaming_message is None for s in ended)
    assert agent.state.streaming_message is None


def test_resume_runs_again_on_the_transcript_as_it_is_with_no_new_message() -> None:
    mock = MockModel([turn(text("one")), turn(text("again"))])
    agent = agent_for(mock)
    asyncio.run(agent.prompt("first"))
    agent.replace_messages(agent.state.messages[:1])  # as if the reply had failed and gone
    asyncio.run(agent.resume())
    assert mock.requests[1]["messages"] == mock.requests[0]["messages"]
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.messages[-1].content[0].text == "again"


def test_the_transcript_is_replaced_only_between_runs() -> None:
    agent = agent_for(MockModel([turn(text("slow"))]))
    refused: list[str] = []

    def replace_midway(event, state) -> None:
        if event.type == "message_start":
            with pytest.raises(AgentBusyError) as error:
                agent.replace_messages([])
            refused.append(str(error.value))

    agent.subscribe(replace_midway)
    asyncio.run(agent.prompt("go"))
    assert refused and "during a run" in refused[0]
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
