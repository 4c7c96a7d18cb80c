"""Build assistant messages and stream events in Pi's pi-ai JSON shape.

Every event carries a deep copy of the partial message, never a reference: a recorded list
of events must show the message as it was at each moment, exactly like a log would. The
helpers here are the only place that decides what a message or a terminal event looks like.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from .usage import zero_usage

DoneReason = Literal["stop", "length", "toolUse"]
ErrorReason = Literal["error", "aborted"]
FALLBACK_MODEL_ID = "mock-1"


def model_id_of(request: dict[str, Any]) -> str:
    """The model id named by the request, or a fixed fallback when it names none."""
    model = request.get("model")
    return model if isinstance(model, str) and model else FALLBACK_MODEL_ID


def new_assistant_message(*, api: str, provider: str, model: str, timestamp: int) -> dict[str, Any]:
    """An empty assistant message, the starting point of every stream."""
    return {
        "role": "assistant",
        "content": [],
        "api": api,
        "provider": provider,
        "model": model,
        "usage": zero_usage(),
        "stopReason": "stop",
        "timestamp": timestamp,
    }


def event(event_type: str, message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A non-terminal event with a snapshot of the partial message."""
    return {"type": event_type, **fields, "partial": copy.deepcopy(message)}


def done_event(message: dict[str, Any], reason: DoneReason) -> dict[str, Any]:
    """The successful terminal event; it fixes the message's stopReason."""
    message["stopReason"] = reason
    return {"type": "done", "reason": reason, "message": copy.deepcopy(message)}


def error_event(message: dict[str, Any], reason: ErrorReason, error_message: str) -> dict[str, Any]:
    """The failing terminal event; the message keeps whatever content was streamed."""
    message["stopReason"] = reason
    message["errorMessage"] = error_message
    return {"type": "error", "reason": reason, "error": copy.deepcopy(message)}


def is_terminal(stream_event: dict[str, Any]) -> bool:
    return stream_event.get("type") in ("done", "error")


def final_message(terminal: dict[str, Any]) -> dict[str, Any]:
    """The assistant message inside a terminal event (done.message or error.error)."""
    message = terminal["message"] if terminal["type"] == "done" else terminal["error"]
    assert isinstance(message, dict)
    return message
