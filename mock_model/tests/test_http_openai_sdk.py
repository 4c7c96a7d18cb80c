"""The official `openai` SDK talks to the MockModel's real local server."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from mock_model import MockModel, fail, text, tool_call, turn
from mock_model.usage import estimate_tokens, request_characters
from mock_model.validate import schema_errors

from .conftest import Serve
from .http_helpers import READ_TOOL

TOOL_THEN_TEXT = [
    turn(text("Let me read it."), tool_call("read", {"path": "notes/a.txt"})),
    turn(text("The file says hello.")),
]


def client_for(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="test", max_retries=0)


def reassemble_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    """Tool calls rebuilt from stream deltas, the way any OpenAI client has to."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or []:
                call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                call["id"] += delta.id or ""
                call["name"] += (delta.function and delta.function.name) or ""
                call["arguments"] += (delta.function and delta.function.arguments) or ""
    return calls


def test_streamed_tool_call_then_text_after_the_tool_result(serve: Serve) -> None:
    model = MockModel(TOOL_THEN_TEXT)
    client = client_for(serve(model))
    history: list[Any] = [{"role": "user", "content": "What is in a.txt?"}]
    options: dict[str, Any] = {"tools": [READ_TOOL], "stream": True}
    options["stream_options"] = {"include_usage": True}
    first = list(client.chat.completions.create(model="mock-1", messages=history, **options))
    call = reassemble_calls(first)[0]
    assert call == {"id": "call_1_1", "name": "read", "arguments": '{"path":"notes/a.txt"}'}
    assert [c.choices[0].finish_reason for c in first if c.choices][-1] == "tool_calls"
    assert first[-1].choices == [] and first[-1].usage is not None
    expected_input = estimate_tokens(request_characters(model.requests[0]))
    assert first[-1].usage.prompt_tokens == expected_input
    assert first[-1].usage.total_tokens == expected_input + first[-1].usage.completion_tokens
    tool_call_message = {"id": call["id"], "type": "function", "function": {
        "name": call["name"], "arguments": call["arguments"]}}  # fmt: skip
    history += [
        {"role": "assistant", "content": "Let me read it.", "tool_calls": [tool_call_message]},
        {"role": "tool", "tool_call_id": call["id"], "content": "hello"},
    ]
    second = list(client.chat.completions.create(model="mock-1", messages=history, **options))
    texts = [c.choices[0].delta.content or "" for c in second if c.choices]
    assert "".join(texts) == "The file says hello."
    assert second[-1].usage is not None and second[-1].usage.completion_tokens == 5
    result = model.requests[1]["messages"][-1]
    assert result["role"] == "toolResult" and result["toolName"] == "read"
    assert result["toolCallId"] == "call_1_1"
    assert result["content"] == [{"type": "text", "text": "hello"}]
    assert schema_errors(model.requests[1], "Request") == []


def test_sdk_stream_helper_accumulates_the_scripted_tool_call(serve: Serve) -> None:
    client = client_for(serve(MockModel(TOOL_THEN_TEXT)))
    messages: list[Any] = [{"role": "user", "content": "hi"}]
    with client.chat.completions.stream(
        model="mock-1", messages=messages, tools=[READ_TOOL]
    ) as stream:
        completion = stream.get_final_completion()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me read it."
    calls = choice.message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("read", {"path": "notes/a.txt"})
    ]


def test_non_streaming_call_returns_one_chat_completion(serve: Serve) -> None:
    model = MockModel([turn(text("Plain answer."))])
    client = client_for(serve(model))
    completion = client.chat.completions.create(
        model="mock-7", messages=[{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "hi"}],
    )  # fmt: skip
    assert completion.object == "chat.completion"
    assert completion.model == "mock-7"
    assert completion.choices[0].message.content == "Plain answer."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.created == 1_767_225_600
    assert completion.usage is not None and completion.usage.completion_tokens == 4
    assert model.requests[0]["systemPrompt"] == "Be brief."


def test_scripted_rate_limit_raises_rate_limit_error(serve: Serve) -> None:
    client = client_for(serve(MockModel([fail("rate_limit", retry_after=7)])))
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="mock-1", messages=[{"role": "user", "content": "x"}])
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.code == "rate_limit_exceeded"
    assert "429 rate limit reached" in caught.value.message


def test_sdk_retries_after_a_rate_limit_and_gets_the_next_turn(serve: Serve) -> None:
    model = MockModel([fail("rate_limit", retry_after=0.01), turn(text("second try"))])
    client = openai.OpenAI(base_url=f"{serve(model)}/v1", api_key="test", max_retries=1)
    completion = client.chat.completions.create(
        model="mock-1", messages=[{"role": "user", "content": "x"}]
    )
    assert completion.choices[0].message.content == "second try"
    assert len(model.requests) == 2


def test_context_overflow_is_a_bad_request_naming_the_overflow(serve: Serve) -> None:
    client = client_for(serve(MockModel([fail("context_overflow")])))
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="mock-1", messages=[{"role": "user", "content": "x"}])
    assert "prompt is too long" in caught.value.message
    assert caught.value.code == "context_length_exceeded"
