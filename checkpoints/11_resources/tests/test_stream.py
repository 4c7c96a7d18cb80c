"""A reply stream ends exactly once, and a failure is a message, not an exception."""

import asyncio
import itertools
import json

import pytest

from mock_model import MockModel, SplitPolicy, text, thinking, tool_call, turn
from pi.ai import (
    AssistantMessage,
    AssistantMessageEventStream,
    DoneEvent,
    ErrorEvent,
    ProtocolError,
    StreamEndedError,
    Usage,
    dump_event,
    parse_event,
    produce,
)

STEP = 2


def empty() -> AssistantMessage:
    return AssistantMessage(content=(), api="mock", provider="mock", model="m",
                            usage=Usage.zero(), stop_reason="stop", timestamp=0)


AWKWARD = SplitPolicy((3, 5, 2, 7))


async def mock_events(*parts) -> list:
    model = MockModel([turn(*parts)], split=AWKWARD)
    return [parse_event(data) async for data in model.stream({"model": "m", "messages": []})]


async def collect(stream: AssistantMessageEventStream) -> list:
    return [event async for event in stream]


def test_iteration_stops_after_the_one_terminal_event() -> None:
    async def run() -> list:
        stream = AssistantMessageEventStream(empty())
        for event in await mock_events(text("Hello there")):
            stream.push(event)
        return await collect(stream)

    events = asyncio.run(run())
    assert [e.type for e in events if e.type in ("done", "error")] == ["done"]
    assert events[-1].type == "done"


def test_result_is_the_final_message_without_iterating() -> None:
    async def run() -> AssistantMessage:
        stream = AssistantMessageEventStream(empty())
        for event in await mock_events(text("Hi"), tool_call("read", {"path": "a"})):
            stream.push(event)
        return await stream.result()

    message = asyncio.run(run())
    assert message.stop_reason == "toolUse"
    assert [block.type for block in message.content] == ["text", "toolCall"]


def test_push_after_the_terminal_event_is_refused() -> None:
    async def run() -> None:
        stream = AssistantMessageEventStream(empty())
        stream.push(DoneEvent(reason="stop", message=empty()))
        with pytest.raises(StreamEndedError):
            stream.push(DoneEvent(reason="stop", message=empty()))

    asyncio.run(run())


def test_a_crashing_producer_ends_in_one_error_event_keeping_the_partial() -> None:
    async def producer(out: AssistantMessageEventStream) -> None:
        for event in (await mock_events(text("partial words")))[:4]:
            out.push(event)
        raise ConnectionError("socket closed")

    async def run() -> tuple[list, AssistantMessage]:
        stream = produce(producer, empty())
        return await collect(stream), await stream.result()

    events, message = asyncio.run(run())
    assert [e.type for e in events].count("error") == 1 and events[-1].type == "error"
    assert message.stop_reason == "error"
    assert message.error_message == "ConnectionError: socket closed"
    assert message.content, "the content that arrived before the crash is kept"


def test_a_producer_that_stops_early_still_ends_the_stream() -> None:
    async def silent(out: AssistantMessageEventStream) -> None:
        return None

    message = asyncio.run(_result_of(silent))
    assert message.stop_reason == "error"
    assert "without a done or error event" in (message.error_message or "")


async def _result_of(producer) -> AssistantMessage:
    return await produce(producer, empty()).result()


def test_a_cancelled_producer_still_ends_the_stream_as_aborted() -> None:
    async def forever(out: AssistantMessageEventStream) -> None:
        await asyncio.Event().wait()

    async def run() -> AssistantMessage:
        stream = produce(forever, empty())
        await asyncio.sleep(0)
        assert stream.producer_task is not None
        stream.producer_task.cancel()
        return await stream.result()

    message = asyncio.run(run())
    assert message.stop_reason == "aborted" and message.error_message == "the reply was cancelled"


def test_text_deltas_join_to_the_text_end_content() -> None:
    events = asyncio.run(mock_events(thinking("Let me think."), text("The answer is 42.")))
    deltas = "".join(e.delta for e in events if e.type == "text_delta")
    assert [e.content for e in events if e.type == "text_end"] == [deltas] == ["The answer is 42."]


def test_every_event_carries_the_partial_message_so_far() -> None:
    events = asyncio.run(mock_events(text("abcdefgh")))
    deltas = [e for e in events if e.type == "text_delta"]
    texts = [e.partial.content[0].text for e in deltas]
    assert len(deltas) > 1
    grown = list(itertools.accumulate(e.delta for e in deltas))
    assert texts == grown, "each partial grew by exactly its delta"


def test_events_round_trip_through_json() -> None:
    for event in asyncio.run(mock_events(thinking("hm"), tool_call("ls", {"path": "."}))):
        assert parse_event(json.loads(json.dumps(dump_event(event)))) == event


def test_an_invalid_event_is_refused_naming_the_field() -> None:
    with pytest.raises(ProtocolError, match=r"^event: text_delta\.contentIndex: "):
        parse_event({"type": "text_delta", "delta": "x", "partial": {}})


def test_error_events_carry_an_error_message() -> None:
    failed = empty().model_copy(update={"stop_reason": "aborted", "error_message": "stop"})
    event = ErrorEvent(reason="aborted", error=failed)
    assert dump_event(event)["error"]["errorMessage"] == "stop"


def test_event_sequence_of_a_tool_call_reply(text_snapshot) -> None:
    events = asyncio.run(mock_events(text("Reading."), tool_call("read", {"path": "a.txt"})))
    lines = [f"{e.type} {json.dumps(getattr(e, 'delta', ''))}" for e in events]
    text_snapshot("\n".join(lines) + "\n", "events.txt")


def test_an_error_event_ends_the_stream_as_surely_as_done() -> None:
    async def scenario() -> None:
        stream = AssistantMessageEventStream(empty())
        failed = empty().model_copy(update={"stop_reason": "error", "error_message": "boom"})
        stream.push(ErrorEvent(reason="error", error=failed))
        assert stream.ended, "an `error` event is terminal too: the stream must end on it"
        assert (await asyncio.wait_for(stream.result(), 1)).error_message == "boom"

    asyncio.run(scenario())
