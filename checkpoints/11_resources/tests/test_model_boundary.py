"""Every model call goes through one boundary, and every failure comes back as a reply."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import pi
from mock_model import MockModel, fail, text, thinking, tool_call, turn
from pi.ai import (
    AbortController,
    AssistantMessage,
    Context,
    MockProvider,
    Model,
    Providers,
    StreamOptions,
    Tool,
    UserMessage,
)

STEP = 3
MOCK = Model(id="mock-1", api="mock", provider="mock")
READ = Tool(name="read", description="Read a file", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def ask(prompt: str = "Hi") -> Context:
    return Context(system_prompt="Be brief.", messages=(UserMessage(content=prompt, timestamp=0),),
                   tools=(READ,))


def call(mock: MockModel, options: StreamOptions | None = None) -> tuple[list, AssistantMessage]:
    async def run() -> tuple[list, AssistantMessage]:
        stream = Providers({"mock": MockProvider(mock)}).stream(MOCK, ask(), options)
        events = [event async for event in stream]
        return events, await stream.result()

    return asyncio.run(run())


def terminals(events: list) -> list[str]:
    return [e.type for e in events if e.type in ("done", "error")]


def test_the_request_the_model_receives(text_snapshot) -> None:
    mock = MockModel([turn(text("Hello"))])
    call(mock)
    text_snapshot(json.dumps(list(mock.requests), indent=2, sort_keys=True) + "\n", "request.json")


def test_a_reply_with_thinking_text_and_a_tool_call_arrives_whole() -> None:
    mock = MockModel([turn(thinking("hmm"), text("Reading"), tool_call("read", {"path": "a"}))])
    events, message = call(mock)
    assert terminals(events) == ["done"]
    assert [b.type for b in message.content] == ["thinking", "text", "toolCall"]
    assert message.stop_reason == "toolUse" and message.content[2].arguments == {"path": "a"}


@pytest.mark.parametrize("kind", ["rate_limit", "server_error", "context_overflow"])
def test_a_scripted_failure_is_an_error_reply_not_an_exception(kind) -> None:
    events, message = call(MockModel([fail(kind)]))
    assert terminals(events) == ["error"]
    assert message.stop_reason == "error" and message.error_message


def test_script_exhaustion_ends_in_exactly_one_error_terminal() -> None:
    mock = MockModel([])
    events, message = call(mock)
    assert [e.type for e in events] == ["error"]
    assert "exhausted" in (message.error_message or "")


def test_a_pre_aborted_call_ends_in_one_aborted_terminal_and_sends_nothing() -> None:
    mock = MockModel([turn(text("never sent"))])
    controller = AbortController()
    controller.abort()
    events, message = call(mock, StreamOptions(signal=controller.signal))
    assert [e.type for e in events] == ["error"] and message.stop_reason == "aborted"
    assert mock.requests == []


def test_an_abort_mid_stream_ends_aborted_and_keeps_the_partial_text() -> None:
    controller = AbortController()
    mock = MockModel([turn(text("one two three four five six"))])

    async def run() -> tuple[list, AssistantMessage]:
        stream = Providers({"mock": MockProvider(mock)}).stream(
            MOCK, ask(), StreamOptions(signal=controller.signal))
        events = []
        async for event in stream:
            events.append(event)
            if event.type == "text_delta":
                controller.abort()
        return events, await stream.result()

    events, message = asyncio.run(run())
    assert terminals(events) == ["error"] and message.stop_reason == "aborted"
    assert message.content and message.content[0].text.startswith("one")


def test_a_pre_aborted_call_never_reaches_the_provider() -> None:
    class Recording:
        calls = 0

        def stream(self, model, context, options):
            Recording.calls += 1
            raise AssertionError("the provider must not be called")

    async def run() -> AssistantMessage:
        controller = AbortController()
        controller.abort()
        providers = Providers({"mock": Recording()})
        return await providers.complete(MOCK, ask(), StreamOptions(signal=controller.signal))

    message = asyncio.run(run())
    assert message.stop_reason == "aborted" and Recording.calls == 0


def test_a_model_with_no_registered_provider_gets_an_error_reply() -> None:
    async def run() -> AssistantMessage:
        other = Model(id="x", api="openai-completions", provider="openai")
        return await Providers().complete(other, ask())

    message = asyncio.run(run())
    assert message.stop_reason == "error" and "openai-completions" in message.error_message


def test_an_invalid_event_from_a_provider_ends_as_an_error_naming_the_field() -> None:
    class Broken:
        async def stream(self, request, signal=None):
            yield {"type": "start", "partial": {"role": "assistant"}}

    async def run() -> AssistantMessage:
        return await Providers({"mock": MockProvider(Broken())}).complete(MOCK, ask())

    message = asyncio.run(run())
    assert message.stop_reason == "error"
    assert "mock event: start.partial.content" in message.error_message


def test_cli_model_prints_events_then_the_final_message(data_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "course", "model", str(data_dir / "scripts" / "read-greeting.yaml")],
        capture_output=True, text=True, check=False,
        cwd=Path(pi.__file__).resolve().parents[1],
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("start")
    assert '"stopReason": "toolUse"' in result.stdout


def test_every_abort_listener_hears_once_even_when_it_comes_late() -> None:
    controller = AbortController()
    heard: list[str] = []
    controller.signal.on_abort(lambda: heard.append("before"))
    controller.abort("stopped by the test")
    controller.abort("a second abort changes nothing")
    controller.signal.on_abort(lambda: heard.append("after"))
    assert heard == ["before", "after"]
    assert controller.signal.aborted and controller.signal.reason == "stopped by the test"


def test_a_context_still_refuses_a_message_of_the_wrong_shape() -> None:
    with pytest.raises(ValidationError, match="timestamp"):
        Context(messages=({"role": "user", "content": "hi"},))  # type: ignore[arg-type]


def test_the_requests_of_a_growing_context_are_sent_whole_each_time() -> None:
    mock = MockModel([turn(text("one")), turn(text("two")), turn(text("three"))])
    provider = MockProvider(mock)
    first = (UserMessage(content="a", timestamp=0),)
    second = (*first, UserMessage(content="b", timestamp=0))
    other = (UserMessage(content="c", timestamp=0),)  # not a continuation: sent afresh

    async def send_all() -> None:
        for messages in (first, second, other):
            await provider.stream(MOCK, Context(messages=messages), StreamOptions()).result()

    asyncio.run(send_all())
    sent = [[m["content"] for m in r["messages"]] for r in mock.requests]
    assert sent == [["a"], ["a", "b"], ["c"]]
