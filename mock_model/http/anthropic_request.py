"""Translate an Anthropic Messages request body into a canonical request.

Anthropic answers tool calls inside *user* messages (`tool_result` blocks), while the
canonical form gives every result its own `toolResult` message; a user message is therefore
split into results and plain user content, keeping their order.
"""

from __future__ import annotations

from typing import Any

from . import canonical as c
from .wire import RequestError

API, PROVIDER = "anthropic-messages", "anthropic"


def anthropic_request(body: dict[str, Any], timestamp: int) -> dict[str, Any]:
    """The canonical request for a `/v1/messages` body; RequestError when invalid."""
    model = c.field_of(body, "model", "body", str)
    c.require("max_tokens" in body, "max_tokens", "Field required")
    max_tokens = body["max_tokens"]
    c.require(type(max_tokens) is int and max_tokens > 0, "max_tokens", "expected a positive int")
    messages: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for index, message in enumerate(c.field_of(body, "messages", "body", list)):
        where = f"messages[{index}]"
        role = c.field_of(message, "role", where, str)
        content = message.get("content")
        if role == "user":
            messages += _user_messages(content, where, names, timestamp)
        elif role == "assistant":
            blocks = [_assistant_block(b, w, names) for b, w in _blocks_of(content, where)]
            messages.append(c.assistant_message(
                blocks, api=API, provider=PROVIDER, model=model, timestamp=timestamp
            ))  # fmt: skip
        else:
            raise RequestError(f"{where}.role: unknown role {role!r}")
    return c.request(model, _system(body.get("system")), messages, _tools(body.get("tools")))


def _blocks_of(content: Any, where: str) -> list[tuple[dict[str, Any], str]]:
    """Content blocks with their locations; a plain string counts as one text block."""
    if isinstance(content, str):
        return [(c.text_block(content), f"{where}.content")]
    c.require(isinstance(content, list), f"{where}.content", "expected a string or a list")
    return [(block, f"{where}.content[{i}]") for i, block in enumerate(content)]


def _user_messages(
    content: Any, where: str, names: dict[str, str], timestamp: int
) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [c.user_message(content, timestamp)]
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for block, block_where in _blocks_of(content, where):
        if c.field_of(block, "type", block_where, str) != "tool_result":
            pending.append(_media_block(block, block_where))
            continue
        if pending:
            messages.append(c.user_message(pending, timestamp))
            pending = []
        messages.append(_tool_result(block, block_where, names, timestamp))
    if pending:
        messages.append(c.user_message(pending, timestamp))
    return messages


def _tool_result(
    block: dict[str, Any], where: str, names: dict[str, str], timestamp: int
) -> dict[str, Any]:
    call_id = c.field_of(block, "tool_use_id", where, str)
    content = block.get("content", [])
    blocks = [_media_block(part, w) for part, w in _blocks_of(content, where)]
    is_error = block.get("is_error") is True
    return c.tool_result_message(call_id, names, blocks, is_error, timestamp)


def _media_block(block: Any, where: str) -> dict[str, Any]:
    """A text or base64 image block, the only kinds user content and results may hold."""
    kind = c.field_of(block, "type", where, str)
    if kind == "text":
        return c.text_block(c.field_of(block, "text", where, str))
    if kind == "image":
        source = c.field_of(block, "source", where, dict)
        c.require(source.get("type") == "base64", f"{where}.source", "only base64 images work")
        media_type = c.field_of(source, "media_type", f"{where}.source", str)
        return c.image_block(c.field_of(source, "data", f"{where}.source", str), media_type)
    raise RequestError(f"{where}.type: unsupported block {kind!r} here")


def _assistant_block(block: Any, where: str, names: dict[str, str]) -> dict[str, Any]:
    kind = c.field_of(block, "type", where, str)
    if kind == "text":
        return c.text_block(c.field_of(block, "text", where, str))
    if kind == "thinking":
        thought = {"type": "thinking", "thinking": c.field_of(block, "thinking", where, str)}
        if isinstance(block.get("signature"), str):
            thought["thinkingSignature"] = block["signature"]
        return thought
    if kind == "redacted_thinking":
        data = c.field_of(block, "data", where, str)
        return {"type": "thinking", "thinking": "", "thinkingSignature": data, "redacted": True}
    if kind == "tool_use":
        call_id = c.field_of(block, "id", where, str)
        names[call_id] = c.field_of(block, "name", where, str)
        arguments = c.field_of(block, "input", where, dict)
        return c.tool_call_block(call_id, names[call_id], arguments)
    raise RequestError(f"{where}.type: unsupported block {kind!r} here")


def _system(system: Any) -> list[str]:
    """A string, or text blocks joined as Anthropic joins them; empty means no prompt."""
    if system is None:
        return []
    text = "".join(c.field_of(b, "text", where, str) for b, where in _blocks_of(system, "system"))
    return [text] if text else []


def _tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    c.require(isinstance(tools, list), "tools", "expected a list")
    converted = []
    for index, item in enumerate(tools):
        where = f"tools[{index}]"
        c.require(isinstance(item, dict), where, "expected an object")
        schema = item.get("input_schema")
        converted.append(c.tool(item.get("name"), item.get("description"), schema, where))
    return converted
