"""The messages every later step speaks (Pi's `Message`): system, user, assistant, toolResult.

`parse_message` refuses bad JSON with one line naming the field; `dump_message` writes it back
exactly. Other roles (Pi's `bashExecution`, `custom`) are opaque `AppMessage`s, kept as
they came."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from pi.ai.content import AssistantBlock, Stored, TextContent, UserBlock, Wire

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class Cost(Stored):
    input: float
    output: float
    cache_read: float
    cache_write: float
    total: float


class Usage(Stored):
    """Tokens a request used; `totalTokens` is missing in files written by older Pi versions."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    total_tokens: int | None = None
    cost: Cost

    @classmethod
    def zero(cls) -> Usage:
        cost = Cost(input=0, output=0, cache_read=0, cache_write=0, total=0)
        return cls(input=0, output=0, cache_read=0, cache_write=0, total_tokens=0, cost=cost)


class Tool(Stored):
    """What the model sees of a tool: a name, what it is for, and a JSON Schema."""

    name: str
    description: str
    parameters: dict[str, Any]


class ToolReference(Stored):
    name: str


class SystemMessage(Stored):
    """Instructions in the transcript (Pi 1.6): the first one is the system prompt and its
    tools; a later one adds text, replaces `sections` by name (None removes) and adds or
    removes tools from there on."""

    role: Literal["system"] = "system"
    content: str | tuple[TextContent, ...]
    sections: dict[str, str | None] | None = None
    tools_added: tuple[Tool, ...] | None = None
    tools_removed: tuple[ToolReference, ...] | None = None
    timestamp: int


class UserMessage(Stored):
    role: Literal["user"] = "user"
    content: str | tuple[UserBlock, ...]
    timestamp: int


class AssistantMessage(Stored):
    """A complete model reply; an error or abort is a reply too, with its stopReason."""

    role: Literal["assistant"] = "assistant"
    content: tuple[AssistantBlock, ...]
    api: str
    provider: str
    model: str
    response_model: str | None = None  # Pi 0.73: the model the provider says answered
    response_id: str | None = None
    diagnostics: tuple[dict[str, Any], ...] | None = None  # Pi 0.73: what went wrong, for people
    usage: Usage
    stop_reason: StopReason
    error_message: str | None = None
    timestamp: int


class ToolResultMessage(Stored):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: tuple[UserBlock, ...]
    details: Any = None
    is_error: bool
    timestamp: int


class AppMessage(Wire):
    """A message of an application role this layer does not interpret; kept as it came."""

    model_config = ConfigDict(extra="allow")
    role: str


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]
AgentMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | AppMessage

TYPED_ROLES: dict[str, type[SystemMessage | UserMessage | AssistantMessage | ToolResultMessage]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "toolResult": ToolResultMessage,
}


class ProtocolError(ValueError):
    """Input that is not a valid protocol object; the text names where and what."""


def describe_error(error: ValidationError, where: str) -> str:
    """The first validation problem as one line: `where: field[2].name: what is wrong`."""
    problem = error.errors()[0]
    field = ""
    for part in problem["loc"]:
        field += f"[{part}]" if isinstance(part, int) else f".{part}"
    if not field:
        return f"{where}: {problem['msg']}"
    return f"{where}: {field.lstrip('.')}: {problem['msg']}"


def parse_message(data: object, where: str = "message") -> AgentMessage:
    """Validate JSON as a message (other roles: AppMessage), else ProtocolError naming the field."""
    if not isinstance(data, dict) or not isinstance(data.get("role"), str):
        raise ProtocolError(f"{where}: expected an object with a string `role`")
    try:
        return TYPED_ROLES.get(data["role"], AppMessage).model_validate(data)
    except ValidationError as error:
        raise ProtocolError(describe_error(error, where)) from None


def dump_message(message: AgentMessage) -> dict[str, Any]:
    """The message as Pi's JSON: camelCase keys, absent optional fields left out."""
    return message.model_dump(mode="json", by_alias=True, exclude_none=True)


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_number(value: float) -> str:
    """`value` as JavaScript writes it (Number::toString): Python's shortest round-trip digits,
    as an exponent only from 1e21 up or below 1e-6 (`1e-7`, `1.5e+21`); -0 as 0, inf as null."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else "null"
    number = Decimal(repr(value)).normalize()
    return format(number, "f" if -7 < number.adjusted() < 21 else "e")


def json_text(data: Any, indent: int | None = None, sort_keys: bool = False, depth: int = 0) -> str:
    """`JSON.stringify(data, null, indent)`: compact unless `indent`, numbers as JS writes
    them, each lone surrogate (half an emoji cut between chunks) as its `\\udXXX` escape."""
    if isinstance(data, float):
        return js_number(data)
    if isinstance(data, dict):
        items = sorted(data.items()) if sort_keys else data.items()
        space = " " if indent else ""
        parts = [f"{json_text(str(key))}:{space}{json_text(item, indent, sort_keys, depth + 1)}"
                 for key, item in items]
    elif isinstance(data, (list, tuple)):
        parts = [json_text(item, indent, sort_keys, depth + 1) for item in data]
    else:  # str, int, bool, None: Python writes them as JS does
        return escape_lone_surrogates(json.dumps(data, ensure_ascii=False))
    start, end = "{}" if isinstance(data, dict) else "[]"
    if not parts or indent is None:
        return start + ",".join(parts) + end
    inner, outer = "\n" + " " * indent * (depth + 1), "\n" + " " * indent * depth
    return start + inner + f",{inner}".join(parts) + outer + end


def escape_lone_surrogates(text: str) -> str:
    """`text` with each lone surrogate as its `\\udXXX` escape: encodable, same JSON value."""
    return LONE_SURROGATE.sub(lambda half: f"\\u{ord(half.group()):04x}", text)
