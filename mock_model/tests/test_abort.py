"""Aborting: before the call, mid-stream and during a scripted delay."""

from __future__ import annotations

import asyncio

from mock_model import MockModel, text, tool_call, turn

from .helpers import AbortFlag, collect, collect_aborting_after, final, user_request

TWO_BLOCK_TURN = turn(text("Hello world"), tool_call("read", {"path": "a.txt"}))


def test_pre_aborted_call_ends_in_exactly_one_aborted_terminal() -> None:
    events = collect(MockModel([TWO_BLOCK_TURN]), signal=AbortFlag(aborted=True))
    assert [event["type"] for event in events] == ["error"]
    assert events[0]["reason"] == "aborted"
    assert events[0]["error"]["stopReason"] == "aborted"
    assert events[0]["error"]["errorMessage"] == "Request was aborted"
    assert events[0]["error"]["content"] == []


def test_pre_aborted_call_captures_no_request_and_consumes_no_turn() -> None:
    model = MockModel([TWO_BLOCK_TURN])
    collect(model, signal=AbortFlag(aborted=True))
    assert model.requests == []
    assert model.remaining == 1
    assert final(collect(model))["stopReason"] == "toolUse"


def test_abort_mid_stream_ends_with_aborted_terminal_keeping_streamed_text() -> None:
    events = collect_aborting_after(MockModel([TWO_BLOCK_TURN]), 3)
    assert [event["type"] for event in events] == [
        "start", "text_start", "text_delta", "error",
    ]  # fmt: skip
    assert events[-1]["reason"] == "aborted"
    assert events[-1]["error"]["content"] == [{"type": "text", "text": "Hel"}]
    assert events[-1]["error"]["errorMessage"] == "Request was aborted"


def test_aborted_message_holds_exactly_what_the_last_delivered_partial_held() -> None:
    for cut in range(1, 12):
        events = collect_aborting_after(MockModel([TWO_BLOCK_TURN]), cut)
        assert events[-1]["error"]["content"] == events[-2]["partial"]["content"]


def test_abort_mid_stream_consumes_the_turn() -> None:
    model = MockModel([TWO_BLOCK_TURN, turn(text("second"))])
    collect_aborting_after(model, 2)
    assert len(model.requests) == 1
    assert final(collect(model))["content"] == [{"type": "text", "text": "second"}]


def test_abort_during_delay_gives_a_lone_aborted_terminal() -> None:
    model = MockModel([turn(text("late"), delay_ms=1000)])
    flag = AbortFlag()

    async def scenario() -> list[dict[str, object]]:
        async def abort_soon() -> None:
            flag.aborted = True

        aborter = asyncio.create_task(abort_soon())
        events = [event async for event in model.stream(user_request(), flag)]
        await aborter
        return events

    events = asyncio.run(scenario())
    assert [event["type"] for event in events] == ["error"]
    assert events[0]["reason"] == "aborted"
    assert len(model.requests) == 1


def test_signal_without_aborted_attribute_is_treated_as_not_aborted() -> None:
    events = collect(MockModel([turn(text("ok"))]), signal=object())
    assert events[-1]["type"] == "done"
