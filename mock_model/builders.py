"""The short constructors scripts are written with: `turn(text("hi"))`, `fail("rate_limit")`.

They live apart from the data classes so a script reads like a sentence while the classes in
`script.py` keep all the checking; every helper returns a validated, frozen value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .script import Failure, FailureKind, Part, TextPart, ThinkingPart, ToolCallPart, Turn


def text(content: str) -> TextPart:
    return TextPart(content)


def thinking(content: str, signature: str | None = None) -> ThinkingPart:
    return ThinkingPart(content, signature)


def tool_call(name: str, arguments: Mapping[str, Any], id: str | None = None) -> ToolCallPart:
    return ToolCallPart(name, dict(arguments), id)


def turn(
    *parts: Part,
    stop_reason: Literal["length"] | None = None,
    usage: Mapping[str, Any] | None = None,
    delay_ms: int = 0,
) -> Turn:
    """A normal turn; `turn(text("hi"))` answers "hi" and stops."""
    return Turn(tuple(parts), stop_reason, usage, None, delay_ms)


def fail(
    kind: FailureKind,
    *parts: Part,
    message: str | None = None,
    delay_ms: int = 0,
    retry_after: float | None = None,
) -> Turn:
    """A failing turn: `parts` are streamed first, then the failure (see docs/protocol.md)."""
    return Turn(tuple(parts), failure=Failure(kind, message, retry_after), delay_ms=delay_ms)
