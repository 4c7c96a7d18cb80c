"""Scripted failures, script exhaustion and broken responders all end as values."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from mock_model import FAILURE_KINDS, FailureKind, MockModel, Turn, fail, text, tool_call, turn

from .helpers import collect, final, play, user_request

STATUS_PREFIXES: dict[FailureKind, str] = {
    "rate_limit": "429 ",
    "server_error": "500 ",
    "overloaded": "529 overloaded",
}


@pytest.mark.parametrize("kind", sorted(STATUS_PREFIXES))
def test_http_style_failures_start_with_their_status_code(kind: FailureKind) -> None:
    events = play(fail(kind))
    assert [event["type"] for event in events] == ["start", "error"]
    assert events[-1]["reason"] == "error"
    assert events[-1]["error"]["stopReason"] == "error"
    assert events[-1]["error"]["errorMessage"].startswith(STATUS_PREFIXES[kind])


def test_context_overflow_message_names_prompt_tokens_over_a_maximum() -> None:
    message = final(play(fail("context_overflow")))
    match = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", message["errorMessage"])
    assert match is not None
    assert int(match[1]) > int(match[2])
    assert int(match[1]) == message["usage"]["input"]


def test_truncated_stream_keeps_the_streamed_parts_and_ends_in_error() -> None:
    events = play(fail("truncated", text("Half an ans"), tool_call("read", {"path": "x"})))
    message = final(events)
    assert events[-1]["reason"] == "error"
    assert message["errorMessage"] == "stream ended before a finish reason"
    assert message["content"][0] == {"type": "text", "text": "Half an ans"}
    assert message["content"][1]["arguments"] == {"path": "x"}
    assert "toolcall_end" in [event["type"] for event in events]


def test_malformed_arguments_stream_broken_json_and_end_normally_with_tool_use() -> None:
    events = play(fail("malformed_arguments", tool_call("edit", {"path": "a.py", "n": 1})))
    broken = "".join(e["delta"] for e in events if e["type"] == "toolcall_delta")
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken)
    assert broken == '{"path":"a.py","n":1'
    end = next(event for event in events if event["type"] == "toolcall_end")
    assert end["toolCall"]["arguments"] == {}
    assert events[-1]["type"] == "done"
    assert events[-1]["reason"] == "toolUse"


@pytest.mark.parametrize("kind", [k for k in FAILURE_KINDS if k != "malformed_arguments"])
def test_failure_message_can_be_overridden(kind: FailureKind) -> None:
    assert final(play(fail(kind, message="custom words")))["errorMessage"] == "custom words"


def test_exhausted_script_captures_the_request_and_says_what_happened() -> None:
    model = MockModel([turn(text("one")), turn(text("two"))])
    collect(model)
    collect(model)
    events = collect(model)
    assert [event["type"] for event in events] == ["error"]
    assert events[0]["reason"] == "error"
    assert events[0]["error"]["errorMessage"] == (
        "MockModel script exhausted: request 3 arrived but the script has 2 turns"
    )
    assert len(model.requests) == 3
    assert model.remaining == 0


def test_responder_that_raises_ends_the_stream_with_an_error_event() -> None:
    def broken(request: dict[str, object], number: int) -> Turn:
        raise RuntimeError("no idea what to say")

    events = collect(MockModel(responder=broken))
    assert [event["type"] for event in events] == ["error"]
    assert "RuntimeError: no idea what to say" in events[0]["error"]["errorMessage"]


def test_responder_that_returns_a_non_turn_ends_with_an_error_event() -> None:
    model = MockModel(responder=lambda request, number: "hi")  # type: ignore[arg-type, return-value]
    message = final(collect(model))
    assert message["stopReason"] == "error"
    assert "expected a Turn" in message["errorMessage"]


def test_failures_never_raise_out_of_complete() -> None:
    model = MockModel([fail("server_error")])
    message = asyncio.run(model.complete(user_request()))
    assert message["stopReason"] == "error"
