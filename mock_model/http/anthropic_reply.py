"""Encode a model run as Anthropic Messages output: named SSE events or one message.

Canonical events map almost one to one onto Anthropic's: block start / delta / end become
content_block_start / _delta / _stop at the same index. The envelope (message_start, then
message_delta with the stop reason and message_stop) is added around them; a cut-off run
stops after its last block, never reaching message_delta.
"""

from __future__ import annotations

from typing import Any

from .canonical import parsed_arguments
from .wire import (
    RawBlock,
    Reply,
    WireError,
    WireResponse,
    compact,
    json_response,
    raw_blocks,
    sse_response,
)

STOP_REASONS = {"stop": "end_turn", "toolUse": "tool_use", "length": "max_tokens"}
ERROR_TYPES = {
    "rate_limit": "rate_limit_error",
    "server_error": "api_error",
    "overloaded": "overloaded_error",
    "context_overflow": "invalid_request_error",
    "invalid_request": "invalid_request_error",
    "no_turn": "api_error",
    "not_found": "not_found_error",
}
EMPTY_BLOCKS: dict[str, dict[str, Any]] = {
    "text": {"type": "text", "text": ""},
    "thinking": {"type": "thinking", "thinking": "", "signature": ""},
}
DELTA_FIELDS = {"text": ("text_delta", "text"), "thinking": ("thinking_delta", "thinking")}
DELTA_FIELDS["toolcall"] = ("input_json_delta", "partial_json")


def anthropic_error(error: WireError) -> WireResponse:
    body = {"type": "error", "error": {"type": ERROR_TYPES[error.kind], "message": error.message}}
    return json_response(error.status, body, error.headers())


def anthropic_stream(reply: Reply) -> WireResponse:
    chunks = [_sse(name, data) for name, data in _stream_events(reply)]
    return sse_response(chunks)


def anthropic_message(reply: Reply) -> WireResponse:
    """One `message`; a cut-off run gets `stop_reason: null`."""
    content = [_finished_block(block) for block in raw_blocks(reply.events)]
    stop = STOP_REASONS.get(reply.finished or "")
    usage = _usage(reply, reply.message["usage"]["output"])
    body = {**_envelope(reply), "content": content, "stop_reason": stop, "stop_sequence": None}
    return json_response(200, {**body, "usage": usage})


def _finished_block(block: RawBlock) -> dict[str, Any]:
    """A whole block; tool input must be an object here, so broken JSON becomes {}."""
    built = _block(block.kind, block.id, block.name)
    if block.kind == "toolcall":
        built["input"] = parsed_arguments(block.text)
    else:
        built[block.kind] = block.text
    if block.signature is not None:
        built["signature"] = block.signature
    return built


def _stream_events(reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    envelope = {**_envelope(reply), "content": [], "stop_reason": None, "usage": _usage(reply, 0)}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"message": envelope})]
    for event in reply.events:
        events += _block_events(event)
    if reply.finished is not None:
        delta = {"stop_reason": STOP_REASONS[reply.finished], "stop_sequence": None}
        usage = {"output_tokens": reply.message["usage"]["output"]}
        events.append(("message_delta", {"delta": delta, "usage": usage}))
        events.append(("message_stop", {}))
    return events


def _block_events(event: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The content_block_* events for one canonical event (none for start/terminals)."""
    kind, _, step = str(event["type"]).rpartition("_")
    index = event.get("contentIndex")
    if step == "start" and kind:
        block = event["partial"]["content"][index]
        started = _block(kind, block.get("id", ""), block.get("name", ""))
        return [("content_block_start", {"index": index, "content_block": started})]
    if step == "delta":
        delta_type, key = DELTA_FIELDS[kind]
        delta = {"type": delta_type, key: event["delta"]}
        return [("content_block_delta", {"index": index, "delta": delta})]
    if step != "end":
        return []
    signature = event["partial"]["content"][index].get("thinkingSignature")
    stop = [("content_block_stop", {"index": index})]
    if kind != "thinking" or signature is None:
        return stop
    signed = {"type": "signature_delta", "signature": signature}
    return [("content_block_delta", {"index": index, "delta": signed}), *stop]


def _block(kind: str, call_id: str, name: str) -> dict[str, Any]:
    if kind == "toolcall":
        return {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return dict(EMPTY_BLOCKS[kind])


def _envelope(reply: Reply) -> dict[str, Any]:
    return {
        "id": f"msg_mock_{reply.number}",
        "type": "message",
        "role": "assistant",
        "model": reply.message["model"],
    }


def _usage(reply: Reply, output_tokens: int) -> dict[str, Any]:
    usage = reply.message["usage"]
    return {
        "input_tokens": usage["input"],
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": usage["cacheWrite"],
        "cache_read_input_tokens": usage["cacheRead"],
    }


def _sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {compact({'type': name, **data})}\n\n".encode()
