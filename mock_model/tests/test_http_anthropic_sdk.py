"""The official `anthropic` SDK talks to the MockModel's real local server."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from mock_model import MockModel, fail, text, thinking, tool_call, turn
from mock_model.validate import schema_errors

from .conftest import Serve

READ_TOOL: Any = {  # Any: the SDK wants its own TypedDict here
    "name": "read",
    "description": "Read a file",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
}
SCRIPT = [
    turn(
        thinking("Need the file.", signature="sig-9"),
        text("Reading it."),
        tool_call("read", {"path": "a.txt"}),
    ),
    turn(text("It says hello.")),
]


def client_for(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)


def test_stream_helper_gives_tool_use_then_text_after_the_result(serve: Serve) -> None:
    model = MockModel(SCRIPT)
    client = client_for(serve(model))
    history: list[Any] = [{"role": "user", "content": "What is in a.txt?"}]
    with client.messages.stream(
        model="mock-1", max_tokens=512, system="Be brief.", messages=history, tools=[READ_TOOL]
    ) as stream:
        deltas = [event.type for event in stream]
        first = stream.get_final_message()
    assert "content_block_delta" in deltas
    assert [block.type for block in first.content] == ["thinking", "text", "tool_use"]
    assert first.content[0].thinking == "Need the file."  # type: ignore[union-attr]
    assert first.content[0].signature == "sig-9"  # type: ignore[union-attr]
    tool_use = first.content[2]
    assert tool_use.type == "tool_use"
    assert (tool_use.id, tool_use.name, tool_use.input) == ("call_1_2", "read", {"path": "a.txt"})
    assert first.stop_reason == "tool_use"
    assert first.usage.output_tokens > 0
    history += [
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use.id, "content": "hello"}]},
    ]  # fmt: skip
    with client.messages.stream(model="mock-1", max_tokens=512, messages=history) as stream:
        second = stream.get_final_message()
    assert [(b.type, getattr(b, "text", None)) for b in second.content] == [
        ("text", "It says hello.")
    ]
    assert second.stop_reason == "end_turn"
    request = model.requests[1]
    assert request["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "Need the file.", "thinkingSignature": "sig-9"
    }  # fmt: skip
    assert request["messages"][-1]["role"] == "toolResult"
    assert request["messages"][-1]["toolName"] == "read"
    assert model.requests[0]["systemPrompt"] == "Be brief."
    assert schema_errors(request, "Request") == []


def test_create_with_stream_true_yields_raw_events(serve: Serve) -> None:
    client = client_for(serve(MockModel([turn(text("Hi there"))])))
    events = client.messages.create(
        model="mock-1", max_tokens=64, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    names = [event.type for event in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]


def test_non_streaming_create_returns_one_message(serve: Serve) -> None:
    client = client_for(serve(MockModel(SCRIPT)))
    message = client.messages.create(
        model="mock-3", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    )
    assert message.model == "mock-3" and message.id == "msg_mock_1"
    assert [block.type for block in message.content] == ["thinking", "text", "tool_use"]
    assert message.stop_reason == "tool_use"


def test_overloaded_raises_the_sdk_overloaded_error(serve: Serve) -> None:
    client = client_for(serve(MockModel([fail("overloaded")])))
    with pytest.raises(anthropic.OverloadedError) as caught:
        client.messages.create(
            model="mock-1", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 529
    assert caught.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": caught.value.body["error"]["message"]},  # type: ignore[index]
    }


def test_rate_limit_raises_the_sdk_rate_limit_error(serve: Serve) -> None:
    client = client_for(serve(MockModel([fail("rate_limit")])))
    with pytest.raises(anthropic.RateLimitError) as caught, client.messages.stream(
        model="mock-1", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ):
        pass  # pragma: no cover - the request fails before the block runs
    assert caught.value.response.headers["retry-after"] == "1"
