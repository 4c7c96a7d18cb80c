"""The script data model: what the MockModel should answer, turn by turn.

A test describes a conversation from the model's side as a list of `Turn`s: turn k answers
request k. Turns are plain frozen values built with small helpers (`text`, `tool_call`,
`turn`, `fail`, ...), and they check their own invariants on construction, so a broken
script fails when it is written or loaded, never halfway through a stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

FailureKind = Literal[
    "rate_limit",
    "server_error",
    "overloaded",
    "context_overflow",
    "truncated",
    "malformed_arguments",
]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)
TOKEN_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "total")


class ScriptError(ValueError):
    """A script is malformed; the message is one line naming the turn and field."""


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ThinkingPart:
    thinking: str
    signature: str | None = None


@dataclass(frozen=True)
class ToolCallPart:
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


Part = TextPart | ThinkingPart | ToolCallPart


@dataclass(frozen=True)
class Failure:
    """How a turn goes wrong; `message` replaces the default error text; `retry_after`
    (seconds) only matters over HTTP, as the `retry-after` header of a 429 or 529."""

    kind: FailureKind
    message: str | None = None
    retry_after: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAILURE_KINDS:
            raise ScriptError(f"fail: unknown failure kind {self.kind!r}")
        wait = self.retry_after
        if wait is not None and (isinstance(wait, bool) or not isinstance(wait, int | float)):
            raise ScriptError(f"retryAfter: expected a number of seconds, got {wait!r}")
        if wait is not None and not 0 <= wait < float("inf"):
            raise ScriptError(f"retryAfter: must be a finite non-negative number, got {wait}")


@dataclass(frozen=True)
class Turn:
    """One scripted answer: content parts plus optional overrides and failure."""

    parts: tuple[Part, ...] = ()
    stop_reason: Literal["length"] | None = None
    usage: Mapping[str, Any] | None = None
    failure: Failure | None = None
    delay_ms: int = 0

    def __post_init__(self) -> None:
        _check_parts(self.parts)
        if self.stop_reason not in (None, "length"):
            raise ScriptError(f"stopReason: only 'length' can be forced, got {self.stop_reason!r}")
        if isinstance(self.delay_ms, bool) or not isinstance(self.delay_ms, int):
            raise ScriptError(f"delayMs: expected an integer, got {self.delay_ms!r}")
        if self.delay_ms < 0:
            raise ScriptError(f"delayMs: must not be negative, got {self.delay_ms}")
        if self.usage is not None:
            check_usage_override(self.usage)
        if self._breaks_arguments() and not self.tool_calls():
            raise ScriptError("fail: malformed_arguments needs at least one tool call part")

    def _breaks_arguments(self) -> bool:
        return self.failure is not None and self.failure.kind == "malformed_arguments"

    def tool_calls(self) -> list[ToolCallPart]:
        return [part for part in self.parts if isinstance(part, ToolCallPart)]


def _check_parts(parts: tuple[Part, ...]) -> None:
    for index, part in enumerate(parts):
        if not isinstance(part, TextPart | ThinkingPart | ToolCallPart):
            raise ScriptError(f"parts[{index}]: expected a text, thinking or toolCall part")
        if isinstance(part, ToolCallPart) and not part.name:
            raise ScriptError(f"parts[{index}].toolCall.name: must be a non-empty string")


def check_usage_override(usage: Mapping[str, Any]) -> None:
    """Reject unknown usage fields and values of the wrong type."""
    if not isinstance(usage, Mapping):
        raise ScriptError(f"usage: expected an object, got {type(usage).__name__}")
    for key, value in usage.items():
        if key == "cost":
            _check_cost_override(value)
        elif key not in TOKEN_FIELDS:
            raise ScriptError(f"usage.{key}: unknown usage field")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ScriptError(f"usage.{key}: expected a non-negative integer, got {value!r}")


def _check_cost_override(cost: object) -> None:
    if not isinstance(cost, Mapping):
        raise ScriptError(f"usage.cost: expected an object, got {cost!r}")
    for key, value in cost.items():
        if key not in COST_FIELDS:
            raise ScriptError(f"usage.cost.{key}: unknown cost field")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScriptError(f"usage.cost.{key}: expected a number, got {value!r}")
