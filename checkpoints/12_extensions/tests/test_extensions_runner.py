"""Handlers in load order, each within a time limit; failures recorded, never fatal."""

import asyncio
from pathlib import Path

import pytest
from fakes import Tally, work_tool

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry
from pi.agent.events import TurnEnd, TurnStart
from pi.agent.tool_calls import ArgumentChange, BlockDecision
from pi.ai import (
    AbortController,
    MockProvider,
    Model,
    Providers,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi.coding_agent.extensions.api import (
    AgentStartChange,
    Command,
    ExtensionAPI,
    InputChange,
    InputHandled,
    NoUI,
)
from pi.coding_agent.extensions.runner import EventRelay, ExtensionRunner, HandlerFailed, run_prompt

STEP = 12
CALL = ToolCall(id="c1", name="bash", arguments={"command": "ls", "opts": {"all": True}})


def ext(name: str, *handlers, commands=()) -> ExtensionAPI:
    extension = ExtensionAPI(Path(name), NoUI(), Path("."))
    extension.handlers += handlers
    extension.commands += commands
    return extension


def outcome(coroutine):
    try:
        return asyncio.run(coroutine)
    except HandlerFailed as failure:
        return failure


async def never_answers(event):
    await asyncio.Event().wait()


def test_a_handler_that_hangs_times_out_and_is_named_in_one_line() -> None:
    runner = ExtensionRunner([ext("slow.py", ("tool_call", never_answers))], timeout=0.001)
    failure = outcome(runner.tool_call(CALL))
    assert isinstance(failure, HandlerFailed)
    assert runner.diagnostics == ["slow.py: tool_call handler failed: timed out after 0.001 s"]


def test_a_handler_that_raises_is_named_with_the_error() -> None:
    def broken(event):
        raise KeyError("command")

    runner = ExtensionRunner([ext("broken.py", ("tool_call", broken))])
    assert isinstance(outcome(runner.tool_call(CALL)), HandlerFailed)
    assert runner.diagnostics == ["broken.py: tool_call handler failed: KeyError: 'command'"]


def test_the_input_a_handler_sees_cannot_be_changed_in_place() -> None:
    def sneaky(event):
        event.input["command"] = "rm -rf /"

    runner = ExtensionRunner([ext("sneaky.py", ("tool_call", sneaky))])
    assert isinstance(outcome(runner.tool_call(CALL)), HandlerFailed)
    assert "does not support item assignment" in runner.diagnostics[0]


def test_argument_changes_chain_and_the_first_block_wins() -> None:
    seen = []

    def quiet(event):
        seen.append(dict(event.input))
        return ArgumentChange({**event.input, "command": event.input["command"] + " -q"})

    async def stop(event):
        seen.append(dict(event.input))
        return BlockDecision("stop here")

    runner = ExtensionRunner([ext("a.py", ("tool_call", quiet)), ext("b.py", ("tool_call", quiet))])
    assert asyncio.run(runner.tool_call(CALL)) == ArgumentChange(
        {"command": "ls -q -q", "opts": {"all": True}})
    blocking = ExtensionRunner([ext("a.py", ("tool_call", stop)),
                                ext("b.py", ("tool_call", quiet))])
    assert asyncio.run(blocking.tool_call(CALL)) == BlockDecision("stop here")
    assert [s["command"] for s in seen] == ["ls", "ls -q", "ls"]


def test_a_block_after_an_argument_change_still_blocks_the_call() -> None:
    def quiet(event):
        return ArgumentChange({**event.input, "command": "ls -q"})

    runner = ExtensionRunner([ext("a.py", ("tool_call", quiet)),
                              ext("b.py", ("tool_call", lambda event: BlockDecision("no")))])
    assert asyncio.run(runner.tool_call(CALL)) == BlockDecision("no")


def test_a_plain_function_that_returns_a_coroutine_is_awaited_too() -> None:
    async def block(event):
        return BlockDecision("awaited")

    runner = ExtensionRunner([ext("lambda.py", ("tool_call", lambda event: block(event)))])
    assert asyncio.run(runner.tool_call(CALL)) == BlockDecision("awaited")


def test_cancelling_a_run_while_a_handler_waits_is_no_failure_of_the_handler() -> None:
    runner = ExtensionRunner([ext("slow.py", ("tool_call", never_answers))])

    async def cancel_midway() -> None:
        task = asyncio.ensure_future(runner.tool_call(CALL))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert runner.diagnostics == []


def test_a_call_handler_answering_neither_block_nor_change_fails_closed_and_is_named() -> None:
    runner = ExtensionRunner([ext("odd.py", ("tool_call", lambda event: True)),
                              ext("later.py", ("tool_call", lambda event: None))])
    failure = outcome(runner.tool_call(CALL))
    assert isinstance(failure, HandlerFailed) and "odd.py" in str(failure)
    assert "True" in str(failure) and runner.diagnostics == [str(failure)]
    assert asyncio.run(ExtensionRunner([ext("quiet.py", ("tool_call", lambda e: None))])
                       .tool_call(CALL)) is None


def test_result_handlers_see_the_latest_result_and_a_wrong_answer_fails() -> None:
    original = ToolResultMessage(tool_call_id="c1", tool_name="bash",
                                 content=(TextContent(text="a"),), is_error=False, timestamp=0)

    def add_b(event):
        text_now = event.result.content[0].text
        return event.result.model_copy(update={"content": (TextContent(text=text_now + "b"),)})

    runner = ExtensionRunner([ext("1.py", ("tool_result", add_b)),
                              ext("2.py", ("tool_result", add_b))])
    assert asyncio.run(runner.tool_result(CALL, original)).content[0].text == "abb"
    wrong = ExtensionRunner([ext("w.py", ("tool_result", lambda event: "ok"))])
    assert isinstance(outcome(wrong.tool_result(CALL, original)), HandlerFailed)
    assert wrong.diagnostics == ["w.py: tool_result handler failed: returned 'ok', not a result"]


def test_watching_handlers_run_in_event_order_and_a_failing_one_is_skipped() -> None:
    seen = []

    async def watch(event):
        await asyncio.sleep(0)
        seen.append(event.type)

    def broken(event):
        raise RuntimeError("oops")

    runner = ExtensionRunner([ext("bad.py", ("turn_start", broken), ("turn_end", broken)),
                              ext("log.py", ("turn_start", watch), ("turn_end", watch))])
    passed_on = []

    async def emit_some() -> None:
        relay = EventRelay(runner, passed_on.append)
        for event in (TurnStart(), TurnEnd(message=None, tool_results=()), TurnStart()):
            relay(event)
        await relay.flush()

    asyncio.run(emit_some())
    assert seen == ["turn_start", "turn_end", "turn_start"] and len(passed_on) == 3
    assert runner.diagnostics == ["bad.py: turn_start handler failed: RuntimeError: oops",
                                  "bad.py: turn_end handler failed: RuntimeError: oops",
                                  "bad.py: turn_start handler failed: RuntimeError: oops"]


def prompt_run(runner: ExtensionRunner, typed: str, mock: MockModel, tally: Tally | None = None):
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry([work_tool(tally or Tally())]),
                        system_prompt="Be brief.")
    return asyncio.run(run_prompt(runner, typed, [], config, lambda e: None,
                                  AbortController().signal))


def test_input_may_be_rewritten_or_handled_and_the_system_prompt_changed() -> None:
    def shorthand(event):
        return InputChange(event.text.replace("?q ", "Answer briefly: "))

    def ping(event):
        return InputHandled() if event.text == "ping" else None

    def pirate(event):
        return AgentStartChange(system_prompt=event.system_prompt + " Talk like a pirate.",
                                messages=(UserMessage(content="(context)", timestamp=0),))

    runner = ExtensionRunner([ext("a.py", ("input", shorthand), ("input", ping),
                                  ("before_agent_start", pirate))])
    mock = MockModel([turn(text("Arr."))])
    assert prompt_run(runner, "ping", mock) is None and mock.requests == []
    result = prompt_run(runner, "?q why", mock)
    request = mock.requests[0]
    assert request["systemPrompt"] == "Be brief. Talk like a pirate."
    assert [m["content"] for m in request["messages"]] == ["Answer briefly: why", "(context)"]
    assert result.messages[-1].content[0].text == "Arr."


def test_an_extension_command_runs_instead_of_a_prompt_and_a_failing_one_is_reported() -> None:
    heard = []

    def fail(args):
        raise RuntimeError("deploy target unknown")

    commands = (Command("note", "Note it", heard.append, Path("c.py")),
                Command("deploy", "Deploy", fail, Path("c.py")))
    runner = ExtensionRunner([ext("c.py", commands=commands)])
    mock = MockModel([turn(text("model answer"))])
    assert prompt_run(runner, "/note  buy milk ", mock) is None
    assert prompt_run(runner, "/deploy prod", mock) is None
    assert heard == ["buy milk"] and mock.requests == []
    assert runner.diagnostics == [
        "c.py: /deploy command failed: RuntimeError: deploy target unknown"]
    assert prompt_run(runner, "/unknown thing", mock).messages[0].content == "/unknown thing"


def test_tool_handlers_reach_the_loop_through_run_prompt() -> None:
    def no_work(event):
        return BlockDecision("no work today") if event.tool_name == "work" else None

    runner, tally = ExtensionRunner([ext("guard.py", ("tool_call", no_work))]), Tally()
    mock = MockModel([turn(tool_call("work", {"x": 1}, id="c1")), turn(text("ok"))])
    result = prompt_run(runner, "do some work", mock, tally)
    results = [m for m in result.messages if m.role == "toolResult"]
    assert [(r.tool_call_id, r.content[0].text) for r in results] == [("c1", "no work today")]
    assert tally.log == []


def test_a_handler_cannot_reach_the_calls_nested_arguments_either() -> None:
    def nested(event):
        event.input["opts"]["all"] = False

    runner = ExtensionRunner([ext("nested.py", ("tool_call", nested))])
    asyncio.run(runner.tool_call(CALL))
    assert CALL.arguments["opts"] == {"all": True}


def test_the_loop_gets_no_hook_for_an_event_nobody_handles() -> None:
    from pi.coding_agent.extensions.runner import tool_hooks

    nobody = tool_hooks(ExtensionRunner([ext("quiet.py", ("agent_start", lambda e: None))]))
    assert nobody.before_tool_call is None and nobody.after_tool_call is None
    gate = tool_hooks(ExtensionRunner([ext("gate.py", ("tool_call", lambda e: None))]))
    assert gate.before_tool_call is not None and gate.after_tool_call is None
