"""The in-process httpx transports: exact SSE bytes, failures as statuses, routing errors."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from mock_model import FakeClock, MockModel, fail, text, tool_call, turn
from mock_model.http import SyncMockTransport

from .http_helpers import (
    anthropic_events,
    chat_body,
    data_lines,
    message_body,
    openai_chunks,
    post,
)

CHAT, MESSAGES = "/v1/chat/completions", "/v1/messages"
TOOL_TURN = turn(text("Reading."), tool_call("read", {"path": "some/long/file_name.txt"}))


def test_a_tool_call_arrives_split_across_several_chunks() -> None:
    answer = post(MockModel([TOOL_TURN]), CHAT, chat_body(stream=True))
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    pieces = [
        call["function"]["arguments"]
        for chunk in openai_chunks(answer.body)
        for call in chunk["choices"][0]["delta"].get("tool_calls", []) if chunk["choices"]
    ]  # fmt: skip
    assert len(pieces) > 3
    assert json.loads("".join(pieces)) == {"path": "some/long/file_name.txt"}
    assert all(chunk.startswith(b"data: ") and chunk.endswith(b"\n\n") for chunk in answer.chunks)
    assert len(answer.chunks) == len(data_lines(answer.body))


def test_two_runs_of_one_script_give_byte_identical_streams() -> None:
    for path, body in ((CHAT, chat_body(stream=True)), (MESSAGES, message_body(stream=True))):
        first = post(MockModel([TOOL_TURN], clock=FakeClock(5_000)), path, body)
        second = post(MockModel([TOOL_TURN], clock=FakeClock(5_000)), path, body)
        assert first.chunks == second.chunks


def test_truncated_stream_has_no_finish_reason_and_no_done_marker() -> None:
    model = MockModel([fail("truncated", text("Half an ans"))] * 2)
    answer = post(model, CHAT, chat_body(stream=True, stream_options={"include_usage": True}))
    assert answer.status == 200
    chunks = openai_chunks(answer.body)
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == "Half an ans"
    assert all(chunk["choices"][0]["finish_reason"] is None for chunk in chunks)
    assert "[DONE]" not in data_lines(answer.body)
    events = anthropic_events(post(model, MESSAGES, message_body(stream=True)).body)
    assert [name for name, _ in events][-1] == "content_block_stop"


def test_usage_chunk_only_when_asked_for() -> None:
    plain = openai_chunks(post(MockModel([TOOL_TURN]), CHAT, chat_body(stream=True)).body)
    assert all(chunk["choices"] for chunk in plain)
    asked = chat_body(stream=True, stream_options={"include_usage": True})
    last = openai_chunks(post(MockModel([TOOL_TURN]), CHAT, asked).body)[-1]
    assert last["choices"] == [] and set(last["usage"]) >= {"prompt_tokens", "total_tokens"}


def test_malformed_arguments_arrive_as_broken_json_text() -> None:
    model = MockModel([fail("malformed_arguments", tool_call("edit", {"n": 1}))])
    completion = post(model, CHAT, chat_body()).json()
    call = completion["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"n":1'
    assert completion["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize(
    ("kind", "status", "openai_type", "anthropic_type"),
    [
        ("rate_limit", 429, "rate_limit_error", "rate_limit_error"),
        ("server_error", 500, "server_error", "api_error"),
        ("overloaded", 529, "server_error", "overloaded_error"),
        ("context_overflow", 400, "invalid_request_error", "invalid_request_error"),
    ],
)
def test_http_failures_map_to_statuses_in_both_formats(
    kind: str, status: int, openai_type: str, anthropic_type: str
) -> None:
    model = MockModel([fail(kind, text("never sent")), fail(kind)])  # type: ignore[arg-type]
    chat = post(model, CHAT, chat_body(stream=True))
    messages = post(model, MESSAGES, message_body(stream=True))
    assert (chat.status, messages.status) == (status, status)
    assert chat.json()["error"]["type"] == openai_type
    assert messages.json()["error"]["type"] == anthropic_type
    assert messages.json()["type"] == "error"
    assert "never sent" not in chat.body.decode()
    if kind == "context_overflow":
        assert "prompt is too long" in chat.json()["error"]["message"]
    assert ("retry-after" in chat.headers) == (kind == "rate_limit")


def test_exhausted_script_is_a_500_naming_the_exhaustion() -> None:
    model = MockModel([])
    answer = post(model, CHAT, chat_body(stream=True))
    assert answer.status == 500
    assert "script exhausted" in answer.json()["error"]["message"]
    assert len(model.requests) == 1


def test_unknown_path_is_404_and_bad_json_is_400() -> None:
    model = MockModel([turn(text("unused"))])
    missing = post(model, "/v1/completions", chat_body())
    assert missing.status == 404 and "no route" in missing.json()["error"]["message"]
    broken = post(model, CHAT, raw=b"{not json")
    assert broken.status == 400 and broken.json()["error"]["type"] == "invalid_request_error"
    assert post(model, MESSAGES, raw=b"[1, 2]").status == 400
    assert model.requests == [] and model.remaining == 1


def test_wire_requests_keep_the_raw_bodies() -> None:
    model = MockModel([turn(text("a")), turn(text("b"))])
    post(model, CHAT, chat_body("first"))
    post(model, MESSAGES, message_body("second", stream=True))
    assert model.wire_requests == [chat_body("first"), message_body("second", stream=True)]


def test_sync_transport_serves_a_sync_client_even_inside_a_running_loop() -> None:
    model = MockModel([turn(text("one")), turn(text("two"))])

    def ask() -> str:
        with httpx.Client(transport=SyncMockTransport(model), base_url="http://mock") as client:
            response = client.post(CHAT, json=chat_body())
            return str(response.json()["choices"][0]["message"]["content"])

    async def ask_from_a_coroutine() -> str:
        return ask()

    assert ask() == "one"
    assert asyncio.run(ask_from_a_coroutine()) == "two"
