"""Values shared by both HTTP faces: a finished reply, a response to send, an HTTP error.

A reply is computed completely before the first byte goes out: the status line depends on
how the scripted turn ends (a 429 cannot follow streamed text), and the model never waits
for real time anyway. The response then goes out chunk by chunk, one SSE event per chunk,
so clients still see a genuine stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ErrorKind = Literal[
    "rate_limit",
    "server_error",
    "overloaded",
    "context_overflow",
    "invalid_request",
    "no_turn",
    "not_found",
]
STATUS_OF: dict[ErrorKind, int] = {
    "rate_limit": 429,
    "server_error": 500,
    "overloaded": 529,
    "context_overflow": 400,
    "invalid_request": 400,
    "no_turn": 500,
    "not_found": 404,
}
DEFAULT_RETRY_AFTER = 1.0
JSON_TYPE = "application/json"
SSE_TYPE = "text/event-stream; charset=utf-8"


class RequestError(ValueError):
    """The request body cannot be translated; answered with a 400 in the face's own format."""


@dataclass(frozen=True)
class WireError:
    """An HTTP-level failure before any content: which kind, what it says, when to retry."""

    kind: ErrorKind
    message: str
    retry_after: float | None = None

    @property
    def status(self) -> int:
        return STATUS_OF[self.kind]

    def headers(self) -> tuple[tuple[str, str], ...]:
        """`retry-after` for rate limits (default 1 s) and for overloads that script one."""
        wait = self.retry_after
        if wait is None and self.kind == "rate_limit":
            wait = DEFAULT_RETRY_AFTER
        return () if wait is None else (("retry-after", seconds_text(wait)),)


@dataclass(frozen=True)
class WireResponse:
    """Everything the transport or server sends: status, headers and the body's chunks."""

    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]
    streaming: bool = False


@dataclass(frozen=True)
class Reply:
    """A successful run of the model, with what a face needs to encode it."""

    events: tuple[dict[str, Any], ...]
    number: int
    include_usage: bool = False
    message: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        last = self.events[-1]
        object.__setattr__(self, "message", last.get("message") or last["error"])

    @property
    def finished(self) -> str | None:
        """The done reason (stop/length/toolUse), or None when the stream was cut off."""
        last = self.events[-1]
        return str(last["reason"]) if last["type"] == "done" else None

    @property
    def created(self) -> int:
        """Seconds since the epoch on the model's injected clock, as OpenAI's `created`."""
        return int(self.message["timestamp"]) // 1000


@dataclass
class RawBlock:
    """One content block exactly as streamed, tool arguments kept as (maybe broken) text."""

    kind: str
    text: str = ""
    id: str = ""
    name: str = ""
    signature: str | None = None


def raw_blocks(events: Sequence[dict[str, Any]]) -> list[RawBlock]:
    """Rebuild the streamed blocks from deltas, which keep broken argument JSON intact."""
    blocks: list[RawBlock] = []
    for event in events:
        kind, _, step = str(event["type"]).rpartition("_")
        if step == "start" and kind:
            source = event["partial"]["content"][event["contentIndex"]]
            blocks.append(RawBlock(kind, id=source.get("id", ""), name=source.get("name", "")))
        elif step == "delta":
            blocks[event["contentIndex"]].text += event["delta"]
        elif event["type"] == "thinking_end":
            block = event["partial"]["content"][event["contentIndex"]]
            blocks[event["contentIndex"]].signature = block.get("thinkingSignature")
    return blocks


def compact(value: Any) -> str:
    return encodable(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def encodable(json_text: str) -> str:
    """JSON text with each lone surrogate (half an emoji a script may hold) written as its
    `\\udXXX` escape, as JavaScript writes it: UTF-8 can always encode the line, and it
    reads back as the same value. (The agent has the same rule in pi.ai.messages; the
    MockModel does not import the agent.)"""
    return re.sub("[\ud800-\udfff]", lambda half: f"\\u{ord(half.group()):04x}", json_text)


def seconds_text(seconds: float) -> str:
    """`1` rather than `1.0`, `0.25` as is: what a `retry-after` header normally holds."""
    return str(int(seconds)) if float(seconds).is_integer() else repr(float(seconds))


def json_response(
    status: int, body: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()
) -> WireResponse:
    encoded = compact(body).encode("utf-8")
    return WireResponse(status, (("content-type", JSON_TYPE), *headers), (encoded,))


def sse_response(chunks: Sequence[bytes]) -> WireResponse:
    headers = (("content-type", SSE_TYPE), ("cache-control", "no-cache"))
    return WireResponse(200, headers, tuple(chunks), streaming=True)
