"""Anthropic's event stream becomes exactly the canonical reply, whatever goes wrong."""

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from mock_model import MockModel, fail, text, thinking, tool_call, turn
from mock_model.http import MockTransport, serve_in_thread
from mock_model.validate import schema_errors
from pi.ai.abort import AbortController
from pi.ai.events import dump_event
from pi.ai.messages import AssistantMessage, UserMessage
from pi.ai.model import Context, Model, StreamOptions, Tool
from pi.ai.providers.anthropic_messages import AnthropicMessagesProvider
from pi.ai.providers.http_exchange import RetryPolicy

STEP = 13
KEY = "sk-ant-test-0123456789abcdef"
CLAUDE = Model(id="mock-1", api="anthropic-messages", provider="anthropic",
               base_url="http://mock")
READ = Tool(name="read", description="Read a file", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
ASK = Context(system_prompt="Be brief.", tools=(READ,),
              messages=(UserMessage(content="What is in a.txt?", timestamp=0),))
OPTIONS = StreamOptions(api_key=KEY)


def call(transport: httpx.AsyncBaseTransport, options: StreamOptions = OPTIONS,
         retry: RetryPolicy | None = None) -> tuple[list, AssistantMessage]:
    """Every event and the final message of one call through `transport` (no network)."""

    async def run() -> tuple[list, AssistantMessage]:
        async with httpx.AsyncClient(transport=transport) as client:
            stream = AnthropicMessagesProvider(client, retry).stream(CLAUDE, ASK, options)
            return [event async for event in stream], await stream.result()

    return asyncio.run(run())


def play(*script, options: StreamOptions = OPTIONS) -> tuple[list, AssistantMessage]:
    return call(MockTransport(MockModel(list(script))), options)


def crafted(*events: tuple[str, dict]) -> httpx.MockTransport:
    """A server answering with exactly these named SSE events."""
    body = "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
                   for name, data in events)
    return httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=body))


START = ("message_start", {"message": {"id": "msg_1", "usage": {"input_tokens": 9}}})
TEXT_BLOCK = ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})


def text_delta(piece: str) -> tuple[str, dict]:
    return ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}})


def test_a_scripted_thinking_text_and_tool_call_arrive_whole_with_usage() -> None:
    events, message = play(turn(
        thinking("Need the file.", signature="sig-9"), text("Reading it."),
        tool_call("read", {"path": "a.txt"}, id="toolu_a"),
        usage={"input": 40, "output": 12, "cacheRead": 300, "cacheWrite": 25}))
    assert message.stop_reason == "toolUse" and events[-1].type == "done"
    thought, said, called = message.content
    assert (thought.thinking, thought.thinking_signature) == ("Need the file.", "sig-9")
    assert said.text == "Reading it."
    assert (called.id, called.name, called.arguments) == ("toolu_a", "read", {"path": "a.txt"})
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write,
            usage.total_tokens) == (40, 12, 300, 25, 377)
    assert (message.response_id, message.api, message.provider) == (
        "msg_mock_1", "anthropic-messages", "anthropic")


def test_every_event_is_valid_protocol_and_deltas_join_to_each_block() -> None:
    events, _ = play(turn(thinking("Check first."), text("Reading it."),
                          tool_call("read", {"path": "a.txt"})))
    for event in events:
        assert schema_errors(dump_event(event)) == [], event.type
    kinds = [e.type for e in events if not e.type.endswith("_delta")]
    assert kinds == ["start", "thinking_start", "thinking_end", "text_start", "text_end",
                     "toolcall_start", "toolcall_end", "done"]
    for index, kind in enumerate(["thinking", "text", "toolcall"]):
        joined = "".join(e.delta for e in events
                         if e.type == f"{kind}_delta" and e.content_index == index)
        assert joined == ("Check first.", "Reading it.", '{"path":"a.txt"}')[index]
    previews = [e.partial.content[2].arguments for e in events if e.type == "toolcall_delta"]
    assert previews[-1] == {"path": "a.txt"} and previews[0] in ({}, {"path": ""})


@pytest.mark.parametrize(("script", "reason"), [
    (turn(text("All done.")), "stop"),
    (turn(text("Cut sh"), stop_reason="length"), "length"),
])
def test_anthropic_stop_reasons_map_to_ours(script, reason) -> None:
    _, message = play(script)
    assert message.stop_reason == reason and message.error_message is None


@pytest.mark.parametrize(("kind", "status", "words"), [
    ("rate_limit", 429, "429 rate limit"),
    ("overloaded", 529, "529 overloaded"),
    ("server_error", 500, "500 internal server error"),
    ("context_overflow", 400, "prompt is too long"),
])
def test_an_http_failure_is_an_error_reply_with_status_and_text(kind, status, words) -> None:
    events, message = play(fail(kind, text("never sent")))
    assert [e.type for e in events] == ["error"] and message.stop_reason == "error"
    assert message.error_message.startswith(f"HTTP {status}: ") and words in message.error_message
    assert message.content == ()


def test_the_key_is_redacted_from_an_error_the_server_echoes() -> None:
    body = {"type": "error", "error": {"type": "authentication_error",
                                       "message": f"invalid x-api-key: {KEY}"}}
    _, message = call(httpx.MockTransport(lambda request: httpx.Response(401, json=body)))
    assert message.error_message == "HTTP 401: invalid x-api-key: ***"


def test_a_rate_limit_is_retried_only_when_the_policy_allows_after_the_servers_wait() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    mock = MockModel([fail("rate_limit", retry_after=2), turn(text("Second try."))])
    _, message = call(MockTransport(mock), retry=RetryPolicy(max_retries=1, sleep=sleep))
    assert message.stop_reason == "stop" and waits == [2.0] and len(mock.requests) == 2
    once = MockModel([fail("rate_limit"), turn(text("unused"))])
    _, message = call(MockTransport(once))
    assert message.stop_reason == "error" and len(once.requests) == 1


def test_a_truncated_stream_is_an_error_keeping_the_partial_text() -> None:
    events, message = play(fail("truncated", text("Half an ans")))
    assert events[-1].type == "error" and message.stop_reason == "error"
    assert message.error_message == "stream ended without a stop reason"
    assert message.content[0].text == "Half an ans"


def test_arguments_that_are_not_json_end_the_reply_as_an_error_naming_the_call() -> None:
    _, message = play(fail("malformed_arguments", tool_call("write", {"path": "a"}, id="tu_1")))
    assert message.stop_reason == "error" and "write (tu_1)" in message.error_message
    assert message.content[0].arguments == {}


def test_an_unknown_stop_reason_is_an_error_not_a_guess() -> None:
    _, message = call(crafted(START, TEXT_BLOCK, text_delta("I can"), (
        "content_block_stop", {"index": 0}), ("message_delta", {
            "delta": {"stop_reason": "refusal"}, "usage": {"output_tokens": 3}}),
        ("message_stop", {})))
    assert message.stop_reason == "error" and "'refusal'" in message.error_message
    assert message.content[0].text == "I can" and message.usage.output == 3


def test_an_error_event_mid_stream_ends_as_an_error_keeping_the_text() -> None:
    _, message = call(crafted(START, ("ping", {}), TEXT_BLOCK, text_delta("So far"), ("error", {
        "error": {"type": "overloaded_error", "message": "Overloaded"}})))
    assert message.stop_reason == "error"
    assert message.error_message == "the provider sent an error: overloaded_error: Overloaded"
    assert message.content[0].text == "So far" and message.usage.input == 9


def test_a_stop_reason_without_message_stop_is_still_an_error() -> None:
    _, message = call(crafted(START, TEXT_BLOCK, text_delta("Done"), (
        "content_block_stop", {"index": 0}), ("message_delta", {
            "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}})))
    assert message.error_message == "stream ended before message_stop"


def test_redacted_thinking_keeps_its_data_and_an_unknown_block_type_is_an_error() -> None:
    redacted = ("content_block_start", {"index": 0, "content_block": {
        "type": "redacted_thinking", "data": "EmwKAhgBEgy"}})
    end = [("message_delta", {"delta": {"stop_reason": "end_turn"}}), ("message_stop", {})]
    _, message = call(crafted(START, redacted, ("content_block_stop", {"index": 0}), *end))
    assert message.stop_reason == "stop"
    block = message.content[0]
    assert (block.thinking, block.thinking_signature, block.redacted) == ("", "EmwKAhgBEgy", True)
    search = ("content_block_start", {"index": 0, "content_block": {"type": "server_tool_use"}})
    _, message = call(crafted(START, search, *end))
    assert message.stop_reason == "error" and "'server_tool_use'" in message.error_message


def test_a_success_status_that_is_not_an_event_stream_is_an_error_reply() -> None:
    _, message = call(httpx.MockTransport(lambda request: httpx.Response(200, json={})))
    assert message.stop_reason == "error" and "text/event-stream" in message.error_message


class StallAfter(httpx.AsyncBaseTransport):
    """The MockModel's reply, but the server goes quiet after its first `chunks` events."""

    def __init__(self, model: MockModel, chunks: int) -> None:
        self.inner, self.chunks = MockTransport(model), chunks

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        pieces = [piece async for piece in response.aiter_raw()]

        async def stalls() -> AsyncIterator[bytes]:
            for piece in pieces[: self.chunks]:
                yield piece
            await asyncio.Event().wait()  # only the abort can end this

        return httpx.Response(200, headers=response.headers, content=stalls())


def test_an_abort_mid_stream_ends_aborted_keeping_the_partial_text() -> None:
    controller = AbortController()

    async def run() -> tuple[list, AssistantMessage]:
        transport = StallAfter(MockModel([turn(text("Half a sentence, then more."))]), 4)
        async with httpx.AsyncClient(transport=transport) as client:
            stream = AnthropicMessagesProvider(client).stream(
                CLAUDE, ASK, StreamOptions(signal=controller.signal))
            events = []
            async for event in stream:
                events.append(event)
                if event.type == "text_delta":
                    controller.abort()
            return events, await stream.result()

    events, message = asyncio.run(run())
    assert events[-1].type == "error" and message.stop_reason == "aborted"
    assert message.error_message == "Request was aborted"
    assert message.content[0].text == "Half a s"  # both deltas sent before the server stalled


def test_the_provider_talks_to_a_real_loopback_server() -> None:
    mock = MockModel([turn(thinking("Hm.", signature="s"), text("Hello over a socket."))])
    url, stop = serve_in_thread(mock)
    try:
        async def run() -> AssistantMessage:
            async with httpx.AsyncClient(timeout=10) as client:
                model = CLAUDE.model_copy(update={"base_url": url})
                return await AnthropicMessagesProvider(client).stream(model, ASK, OPTIONS).result()

        message = asyncio.run(run())
    finally:
        stop()
    assert message.stop_reason == "stop", message.error_message
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[1].text == "Hello over a socket."
    assert mock.wire_requests[0]["max_tokens"] == CLAUDE.max_tokens
