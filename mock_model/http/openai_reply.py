"""Encode a model run as OpenAI Chat Completions output: SSE chunks or one completion.

The chunk sequence mirrors what api.openai.com sends: a role chunk, content / reasoning /
tool-call deltas (a call's id and name only in its first delta, because the SDK's chunk
accumulator concatenates repeated strings), a finish chunk, an optional usage chunk, and
`[DONE]`. A cut-off run simply stops, with neither finish_reason nor `[DONE]`.
"""

from __future__ import annotations

from typing import Any

from .wire import Reply, WireError, WireResponse, compact, json_response, raw_blocks, sse_response

FINISH_REASONS = {"stop": "stop", "toolUse": "tool_calls", "length": "length"}
ERROR_TYPES = {
    "rate_limit": ("rate_limit_error", "rate_limit_exceeded"),
    "server_error": ("server_error", "internal_error"),
    "overloaded": ("server_error", "overloaded"),
    "context_overflow": ("invalid_request_error", "context_length_exceeded"),
    "invalid_request": ("invalid_request_error", None),
    "no_turn": ("server_error", "mock_script_exhausted"),
    "not_found": ("invalid_request_error", "unknown_url"),
}
DONE_LINE = b"data: [DONE]\n\n"


def openai_error(error: WireError) -> WireResponse:
    """`{"error": {message, type, code}}` with the status (and retry-after) of the kind."""
    kind, code = ERROR_TYPES[error.kind]
    body = {"error": {"message": error.message, "type": kind, "param": None, "code": code}}
    return json_response(error.status, body, error.headers())


def openai_stream(reply: Reply) -> WireResponse:
    chunks = [_sse(_chunk(reply, delta)) for delta in _deltas(reply)]
    if reply.finished is not None:
        chunks.append(_sse(_chunk(reply, {}, FINISH_REASONS[reply.finished])))
        if reply.include_usage:
            chunks.append(_sse({**_envelope(reply), "choices": [], "usage": _usage(reply)}))
        chunks.append(DONE_LINE)
    return sse_response(chunks)


def openai_completion(reply: Reply) -> WireResponse:
    """One `chat.completion`; a cut-off run gets `finish_reason: null`."""
    blocks = raw_blocks(reply.events)
    texts = [block.text for block in blocks if block.kind == "text"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    thoughts = [block.text for block in blocks if block.kind == "thinking"]
    if thoughts:
        message["reasoning_content"] = "".join(thoughts)
    calls = [_call(b.id, b.name, b.text) for b in blocks if b.kind == "toolcall"]
    if calls:
        message["tool_calls"] = calls
    finish = FINISH_REASONS.get(reply.finished or "")
    choice = {"index": 0, "message": message, "finish_reason": finish}
    body = {**_envelope(reply, "chat.completion"), "choices": [choice], "usage": _usage(reply)}
    return json_response(200, body)


def _deltas(reply: Reply) -> list[dict[str, Any]]:
    """One `delta` per event that carries output; tool calls are numbered from 0."""
    deltas: list[dict[str, Any]] = []
    slots: dict[int, int] = {}
    for event in reply.events:
        kind = event["type"]
        if kind == "start":
            deltas.append({"role": "assistant", "content": ""})
        elif kind == "text_delta":
            deltas.append({"content": event["delta"]})
        elif kind == "thinking_delta":
            deltas.append({"reasoning_content": event["delta"]})
        elif kind == "toolcall_start":
            slots[event["contentIndex"]] = len(slots)
            block = event["partial"]["content"][event["contentIndex"]]
            call = _call(block["id"], block["name"], "")
            deltas.append({"tool_calls": [{"index": slots[event["contentIndex"]], **call}]})
        elif kind == "toolcall_delta":
            call = {"type": "function", "function": {"arguments": event["delta"]}}
            deltas.append({"tool_calls": [{"index": slots[event["contentIndex"]], **call}]})
    return deltas


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _envelope(reply: Reply, kind: str = "chat.completion.chunk") -> dict[str, Any]:
    return {
        "id": f"chatcmpl-mock-{reply.number}",
        "object": kind,
        "created": reply.created,
        "model": reply.message["model"],
    }


def _chunk(reply: Reply, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**_envelope(reply), "choices": [choice]}


def _usage(reply: Reply) -> dict[str, Any]:
    """OpenAI counts cached tokens inside prompt_tokens; the canonical form keeps them apart."""
    usage = reply.message["usage"]
    prompt = usage["input"] + usage["cacheRead"]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage["output"],
        "total_tokens": prompt + usage["output"],
        "prompt_tokens_details": {"cached_tokens": usage["cacheRead"]},
    }


def _sse(data: dict[str, Any]) -> bytes:
    return f"data: {compact(data)}\n\n".encode()
