"""Wire requests land in `model.requests` in canonical form, whichever format they came in."""

from __future__ import annotations

from typing import Any

from mock_model import MockModel, text, turn
from mock_model.validate import schema_errors

from .http_helpers import READ_TOOL, post

PNG = "iVBORw0KGgo="
T = 1_767_225_600_000  # every translated message is stamped with the model's fake clock
CALL = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'}}


def canonical_after(path: str, body: dict[str, Any]) -> dict[str, Any]:
    model = MockModel([turn(text("ok"))])
    answer = post(model, path, body)
    assert answer.status == 200, answer.body
    assert schema_errors(model.requests[0], "Request") == []
    return model.requests[0]


def test_openai_roles_parts_tool_calls_and_tools_become_canonical() -> None:
    request = canonical_after("/v1/chat/completions", {
        "model": "mock-1",
        "tools": [READ_TOOL, {"type": "function", "function": {"name": "ls"}}],
        "messages": [
            {"role": "system", "content": "Rules."},
            {"role": "developer", "content": [{"type": "text", "text": "More rules."}]},
            {"role": "user", "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]},
            {"role": "assistant", "content": None, "reasoning_content": "hm", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "c1", "content": "file text"},
        ],
    })  # fmt: skip
    assert request["systemPrompt"] == "Rules.\n\nMore rules."
    user, assistant, result = request["messages"]
    assert user["content"] == [
        {"type": "text", "text": "Look:"},
        {"type": "image", "data": PNG, "mimeType": "image/png"},
    ]
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "hm"},
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
    ]
    assert (assistant["stopReason"], assistant["api"]) == ("toolUse", "openai-completions")
    assert result == {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                      "content": [{"type": "text", "text": "file text"}], "isError": False,
                      "timestamp": T}  # fmt: skip
    assert request["tools"][1] == {"name": "ls", "description": "",
                                   "parameters": {"type": "object", "properties": {}}}  # fmt: skip


def test_anthropic_tool_results_split_out_of_user_messages_in_order() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    request = canonical_after("/v1/messages", {
        "model": "mock-1", "max_tokens": 100,
        "system": [{"type": "text", "text": "Be "}, {"type": "text", "text": "kind."}],
        "tools": [{"name": "read", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "Read a"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                 "content": [{"type": "text", "text": "missing"}, image]},
                {"type": "text", "text": "Try again."}]},
        ],
    })  # fmt: skip
    assert request["systemPrompt"] == "Be kind."
    schema = {"type": "object"}
    assert request["tools"] == [{"name": "read", "description": "", "parameters": schema}]
    roles = [message["role"] for message in request["messages"]]
    assert roles == ["user", "assistant", "toolResult", "user"]
    result = request["messages"][2]
    assert result["isError"] is True and result["toolName"] == "read"
    assert result["content"][1] == {"type": "image", "data": PNG, "mimeType": "image/png"}
    assert request["messages"][3]["content"] == [{"type": "text", "text": "Try again."}]


def test_missing_max_tokens_is_a_400_and_uses_no_turn() -> None:
    model = MockModel([turn(text("unused"))])
    body = {"model": "mock-1", "messages": [{"role": "user", "content": "hi"}]}
    answer = post(model, "/v1/messages", body)
    assert answer.status == 400
    assert answer.json()["error"] == {"type": "invalid_request_error",
                                      "message": "max_tokens: Field required"}  # fmt: skip
    assert model.requests == [] and model.wire_requests == [body]


def test_untranslatable_openai_requests_are_400s_naming_the_field() -> None:
    model = MockModel([turn(text("unused"))])
    orphan = {"model": "m", "messages": [{"role": "tool", "tool_call_id": "x", "content": "?"}]}
    remote = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    linked = {"model": "m", "messages": [{"role": "user", "content": [remote]}]}
    for body, words in ((orphan, "'x' answers no earlier tool call"),
                        (linked, "messages[0].content[0].image_url.url"),
                        ({"messages": []}, "body.model")):  # fmt: skip
        answer = post(model, "/v1/chat/completions", body)
        assert answer.status == 400
        assert words in answer.json()["error"]["message"]
    assert model.requests == []
