"""The loop's turn hook: asked between turns, never before the first; a context it hands
back is what every later request reads."""

import asyncio

from fakes import Tally, work_tool

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry, run_loop
from pi.ai import AbortController, MockProvider, Model, Providers, UserMessage

STEP = 13
MOCK = Model(id="mock-1", api="mock", provider="mock")


def run_with_hook(mock: MockModel, before_turn) -> None:
    providers = Providers({"mock": MockProvider(mock)})
    tools = ToolRegistry([work_tool(Tally())])
    config = LoopConfig(model=MOCK, stream=providers.stream, tools=tools, before_turn=before_turn)
    prompts = [UserMessage(content="go", timestamp=0)]
    asyncio.run(run_loop(prompts, [], config, lambda event: None, AbortController().signal))


def test_the_hook_is_asked_between_turns_and_never_before_the_first() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 0})) for _ in range(2)] + [turn(text("ok"))])
    asked = []

    async def before_turn() -> None:
        asked.append(len(mock.requests))

    run_with_hook(mock, before_turn)
    assert asked == [1, 2]


def test_a_context_the_hook_hands_back_is_what_later_requests_read() -> None:
    mock = MockModel([turn(tool_call("work", {"x": 0})) for _ in range(2)] + [turn(text("ok"))])
    summary = UserMessage(content="summary of what came before", timestamp=0)

    async def before_turn():
        return [summary] if len(mock.requests) == 1 else None

    run_with_hook(mock, before_turn)
    sent = [[m["role"] for m in request["messages"]] for request in mock.requests]
    assert sent == [["user"], ["user"], ["user", "assistant", "toolResult"]]
    assert mock.requests[1]["messages"][0]["content"] == "summary of what came before"
