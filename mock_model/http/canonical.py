"""Build canonical (pi-ai) messages from pieces of a wire request, for both faces.

Whatever arrives over HTTP must land in `model.requests` in exactly the shape an in-process
caller would have sent, so tests can assert on one format whichever door a client used.
Wire messages carry no timestamps or usage, so those come from the model's clock and zeros.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..usage import zero_usage
from .wire import RequestError


def require(condition: bool, where: str, problem: str) -> None:
    """Raise the 400-worthy RequestError naming the offending field when `condition` fails."""
    if not condition:
        raise RequestError(f"{where}: {problem}")


def field_of(data: Any, key: str, where: str, kind: type) -> Any:
    """`data[key]`, which must exist and be of type `kind`."""
    require(isinstance(data, Mapping), where, "expected an object")
    value = data.get(key)
    require(isinstance(value, kind), f"{where}.{key}", f"expected {kind.__name__}")
    return value


def user_message(content: str | list[dict[str, Any]], timestamp: int) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": timestamp}


def assistant_message(
    blocks: list[dict[str, Any]], *, api: str, provider: str, model: str, timestamp: int
) -> dict[str, Any]:
    """A past assistant turn as the agent would have stored it; usage is unknown, so zero."""
    has_calls = any(block["type"] == "toolCall" for block in blocks)
    return {
        "role": "assistant",
        "content": blocks,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": zero_usage(),
        "stopReason": "toolUse" if has_calls else "stop",
        "timestamp": timestamp,
    }


def tool_result_message(
    call_id: str, names: Mapping[str, str], content: list[dict[str, Any]], is_error: bool,
    timestamp: int,
) -> dict[str, Any]:  # fmt: skip
    """A toolResult; its `toolName` comes from the assistant call it answers."""
    require(call_id in names, "tool result", f"{call_id!r} answers no earlier tool call")
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": names[call_id],
        "content": content,
        "isError": is_error,
        "timestamp": timestamp,
    }


def tool_call_block(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def parsed_arguments(text: str) -> dict[str, Any]:
    """Argument JSON text as an object; anything that is not a JSON object becomes {}."""
    try:
        value = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_block(data: str, mime_type: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": mime_type}


def tool(name: str, description: Any, parameters: Any, where: str) -> dict[str, Any]:
    """A canonical tool; descriptions are optional on the wire, so they default to ''."""
    require(isinstance(name, str) and bool(name), f"{where}.name", "expected a non-empty string")
    require(isinstance(parameters, dict), f"{where}", "expected a JSON Schema object")
    text = description if isinstance(description, str) else ""
    return {"name": name, "description": text, "parameters": parameters}


def request(
    model: str, system: list[str], messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> dict[str, Any]:
    """The canonical request; `systemPrompt` and `tools` only when the wire had them."""
    built: dict[str, Any] = {"model": model}
    if system:
        built["systemPrompt"] = "\n\n".join(system)
    built["messages"] = messages
    if tools:
        built["tools"] = tools
    return built
