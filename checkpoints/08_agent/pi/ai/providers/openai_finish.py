"""How an OpenAI reply ends: the last `finish_reason` becomes a stop reason, and the usage
chunk (no choices, after the last) becomes Pi's `Usage`."""

from __future__ import annotations

import math
from typing import Any, Literal

from pi.ai.events import DoneEvent, TerminalEvent
from pi.ai.messages import AssistantMessage, Usage
from pi.ai.stream import error_event

Finished = Literal["stop", "length", "toolUse"]
FINISH_REASONS: dict[str, Finished] = {
    "stop": "stop", "length": "length", "tool_calls": "toolUse", "function_call": "toolUse"}


def terminal_event(message: AssistantMessage, finish_reason: str | None) -> TerminalEvent:
    """The event that ends a reply. An unknown finish reason (`content_filter`) is an error,
    never a guess: calling it `stop` would present a cut-off answer as complete."""
    if finish_reason is None:
        return error_event(message, "stream ended without a finish reason", "error")
    reason = FINISH_REASONS.get(finish_reason)
    if reason is None:
        return error_event(message, f"unknown finish reason {finish_reason!r}", "error")
    return DoneEvent(reason=reason, message=message.model_copy(update={"stop_reason": reason}))


def usage_from(data: dict[str, Any]) -> Usage:
    """OpenAI counts cached prompt tokens inside `prompt_tokens`; Pi counts them apart."""
    prompt = token_count(data.get("prompt_tokens"))
    output = token_count(data.get("completion_tokens"))
    details = data.get("prompt_tokens_details")
    cached = token_count(details.get("cached_tokens") if isinstance(details, dict) else 0)
    zero = Usage.zero()
    return zero.model_copy(update={"input": prompt - cached, "output": output,
                                   "cache_read": cached, "total_tokens": prompt + output})


def token_count(value: object) -> int:
    """A whole, non-negative count: a fraction (`12.5`) is rounded, and anything that is not a
    finite number (`NaN`, `1e400`) is 0, so a session file never holds one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return max(0, round(value))
