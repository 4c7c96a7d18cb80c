"""How an Anthropic reply ends: its stop reason and the tokens it used.

`message_delta` names why the model stopped (`stop_reason`) and `message_stop` closes the
stream. Token counts arrive in two places: `message_start` has the input side (including the
prompt cache), `message_delta` the output. Unlike OpenAI, Anthropic counts cached prompt
tokens apart from `input_tokens` already, which is Pi's way too, so nothing is subtracted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pi.ai.events import DoneEvent, TerminalEvent
from pi.ai.messages import AssistantMessage, Usage
from pi.ai.stream import error_event

Finished = Literal["stop", "length", "toolUse"]
STOP_REASONS: dict[str, Finished] = {"end_turn": "stop", "max_tokens": "length",
                                     "tool_use": "toolUse"}
USAGE_FIELDS = {"input_tokens": "input", "output_tokens": "output",
                "cache_read_input_tokens": "cache_read",
                "cache_creation_input_tokens": "cache_write"}


def terminal_event(
    message: AssistantMessage, stop_reason: str | None, stopped: bool
) -> TerminalEvent:
    """The event that ends a reply, from the stop reason and whether `message_stop` came.

    Any stop reason but the three we know (`refusal`, `pause_turn`, something new) is an
    error naming it, never a guess: calling it `stop` could present an unfinished answer as
    a finished one.
    """
    if stop_reason is None:
        return error_event(message, "stream ended without a stop reason", "error")
    reason = STOP_REASONS.get(stop_reason)
    if reason is None:
        return error_event(message, f"unknown stop reason {stop_reason!r}", "error")
    if not stopped:
        return error_event(message, "stream ended before message_stop", "error")
    return DoneEvent(reason=reason, message=message.model_copy(update={"stop_reason": reason}))


def usage_from(usage: Usage, data: Mapping[str, Any]) -> Usage:
    """`usage` with every count `data` gives (a missing or null count keeps its value).

    Anthropic sends no total; like Pi, it is the sum of the four counts.
    """
    counts = {name: getattr(usage, name) for name in USAGE_FIELDS.values()}
    for wire, name in USAGE_FIELDS.items():
        if isinstance(data.get(wire), int):
            counts[name] = data[wire]
    return usage.model_copy(update={**counts, "total_tokens": sum(counts.values())})
