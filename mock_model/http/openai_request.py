"""Translate an OpenAI Chat Completions request body into a canonical request.

OpenAI spreads one conversation over roles the canonical form does not have (system,
developer, tool) and sends tool arguments as JSON text; this module folds those into
`systemPrompt`, parsed `toolCall` blocks and `toolResult` messages.
"""

from __future__ import annotations

import re
from typing import Any

from . import canonical as c
from .wire import RequestError

API, PROVIDER = "openai-completions", "openai"
DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def openai_request(body: dict[str, Any], timestamp: int) -> dict[str, Any]:
    """The canonical request for a `/v1/chat/completions` body; RequestError when invalid."""
    model = c.field_of(body, "model", "body", str)
    wire_messages = c.field_of(body, "messages", "body", list)
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for index, message in enumerate(wire_messages):
        where = f"messages[{index}]"
        role = c.field_of(message, "role", where, str)
        if role in ("system", "developer"):
            system.append(_plain_text(message.get("content"), where))
        elif role == "user":
            messages.append(c.user_message(_user_content(message, where), timestamp))
        elif role == "assistant":
            blocks = _assistant_blocks(message, where, names)
            messages.append(c.assistant_message(
                blocks, api=API, provider=PROVIDER, model=model, timestamp=timestamp
            ))  # fmt: skip
        elif role == "tool":
            call_id = c.field_of(message, "tool_call_id", where, str)
            content = _blocks(message.get("content"), where)
            messages.append(c.tool_result_message(call_id, names, content, False, timestamp))
        else:
            raise RequestError(f"{where}.role: unknown role {role!r}")
    return c.request(model, system, messages, _tools(body.get("tools"), "tools"))


def _user_content(message: dict[str, Any], where: str) -> str | list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, str) else _blocks(content, where)


def _plain_text(content: Any, where: str) -> str:
    """System text: a string, or the texts of a parts array joined together."""
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in _blocks(content, where) if block["type"] == "text")


def _blocks(content: Any, where: str) -> list[dict[str, Any]]:
    """Text and image blocks from a content string or an array of content parts."""
    if isinstance(content, str):
        return [c.text_block(content)]
    c.require(isinstance(content, list), f"{where}.content", "expected a string or a list")
    return [_part(part, f"{where}.content[{i}]") for i, part in enumerate(content)]


def _part(part: Any, where: str) -> dict[str, Any]:
    kind = c.field_of(part, "type", where, str)
    if kind == "text":
        return c.text_block(c.field_of(part, "text", where, str))
    if kind == "image_url":
        url = c.field_of(c.field_of(part, "image_url", where, dict), "url", where, str)
        match = DATA_URL.fullmatch(url)
        c.require(match is not None, f"{where}.image_url.url", "only base64 data: URLs work")
        assert match is not None
        return c.image_block(match[2], match[1])
    raise RequestError(f"{where}.type: unsupported content part {kind!r}")


def _assistant_blocks(
    message: dict[str, Any], where: str, names: dict[str, str]
) -> list[dict[str, Any]]:
    """Reasoning, text, then tool calls; remembers each call's name for later tool results."""
    blocks: list[dict[str, Any]] = []
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append({"type": "thinking", "thinking": reasoning})
    content = message.get("content")
    if content is not None:
        blocks += [b for b in _blocks(content, where) if b["type"] == "text" and b["text"]]
    for index, call in enumerate(message.get("tool_calls") or []):
        call_where = f"{where}.tool_calls[{index}]"
        call_id = c.field_of(call, "id", call_where, str)
        function = c.field_of(call, "function", call_where, dict)
        name = c.field_of(function, "name", f"{call_where}.function", str)
        arguments = function.get("arguments")
        arguments_text = arguments if isinstance(arguments, str) else ""
        names[call_id] = name
        blocks.append(c.tool_call_block(call_id, name, c.parsed_arguments(arguments_text)))
    return blocks


def _tools(tools: Any, where: str) -> list[dict[str, Any]]:
    if tools is None:
        return []
    c.require(isinstance(tools, list), where, "expected a list")
    converted = []
    for index, item in enumerate(tools):
        function = c.field_of(item, "function", f"{where}[{index}]", dict)
        parameters = function.get("parameters", EMPTY_PARAMETERS)
        converted.append(c.tool(
            function.get("name"), function.get("description"), parameters,
            f"{where}[{index}].function",
        ))  # fmt: skip
    return converted
