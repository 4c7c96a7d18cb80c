"""Smaller wire details: reasoning, forced length stops, retry-after, concurrent requests."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from mock_model import MockModel, ScriptError, fail, script_from_data, text, thinking, turn
from mock_model.http import MockTransport

from .http_helpers import anthropic_events, chat_body, message_body, openai_chunks, post

CHAT, MESSAGES = "/v1/chat/completions", "/v1/messages"


def test_thinking_streams_as_reasoning_content_and_thinking_deltas() -> None:
    script = [turn(thinking("Ponder.", signature="s1"), text("Answer."))] * 2
    model = MockModel(script)
    chunks = openai_chunks(post(model, CHAT, chat_body(stream=True)).body)
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "Ponder."
    events = anthropic_events(post(model, MESSAGES, message_body(stream=True)).body)
    kinds = [data["delta"]["type"] for name, data in events if name == "content_block_delta"]
    assert kinds[:2] == ["thinking_delta", "thinking_delta"] and "signature_delta" in kinds


def test_forced_length_stop_maps_to_length_and_max_tokens() -> None:
    model = MockModel([turn(text("cut"), stop_reason="length")] * 2)
    completion = post(model, CHAT, chat_body()).json()
    assert completion["choices"][0]["finish_reason"] == "length"
    assert post(model, MESSAGES, message_body()).json()["stop_reason"] == "max_tokens"


def test_retry_after_comes_from_the_script_file() -> None:
    turns = script_from_data({"turns": [{"fail": "rate_limit", "retryAfter": 2.5},
                                        {"fail": "overloaded", "retryAfter": 3}]})  # fmt: skip
    model = MockModel(turns)
    assert post(model, CHAT, chat_body()).headers["retry-after"] == "2.5"
    assert post(model, MESSAGES, message_body()).headers["retry-after"] == "3"


@pytest.mark.parametrize(
    ("turn_data", "message"),
    [
        ({"text": "x", "retryAfter": 1}, "turns[0].retryAfter: only allowed together with 'fail'"),
        ({"fail": "rate_limit", "retryAfter": -1}, "turns[0].retryAfter: must be a finite"),
        ({"fail": "rate_limit", "retryAfter": "1"}, "turns[0].retryAfter: expected a number"),
    ],
)
def test_bad_retry_after_is_a_script_error(turn_data: dict[str, object], message: str) -> None:
    with pytest.raises(ScriptError, match=re.escape(message)):
        script_from_data({"turns": [turn_data]})


def test_concurrent_requests_get_turns_in_arrival_order() -> None:
    model = MockModel([fail("rate_limit", delay_ms=50), turn(text("two"), delay_ms=5)])

    async def send_both() -> list[int]:
        transport = MockTransport(model)
        async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
            answers = await asyncio.gather(
                client.post(CHAT, json=chat_body("first")),
                client.post(CHAT, json=chat_body("second")),
            )
        return [answer.status_code for answer in answers]

    assert asyncio.run(send_both()) == [429, 200]
    assert [r["messages"][0]["content"] for r in model.requests] == ["first", "second"]
