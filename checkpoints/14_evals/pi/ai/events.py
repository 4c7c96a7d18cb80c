"""The events of one streamed reply, in Pi's `AssistantMessageEvent` shape: `start`, then
`*_start` / `*_delta` / `*_end` per block, then one `done` or `error`; each carries the partial."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError

from pi.ai.content import ToolCall, Wire
from pi.ai.messages import AssistantMessage, ProtocolError, describe_error


class StartEvent(Wire):
    type: Literal["start"] = "start"
    partial: AssistantMessage


class BlockEvent(Wire):
    content_index: int
    partial: AssistantMessage


class TextStartEvent(BlockEvent):
    type: Literal["text_start"] = "text_start"


class TextDeltaEvent(BlockEvent):
    type: Literal["text_delta"] = "text_delta"
    delta: str


class TextEndEvent(BlockEvent):
    type: Literal["text_end"] = "text_end"
    content: str


class ThinkingStartEvent(BlockEvent):
    type: Literal["thinking_start"] = "thinking_start"


class ThinkingDeltaEvent(BlockEvent):
    type: Literal["thinking_delta"] = "thinking_delta"
    delta: str


class ThinkingEndEvent(BlockEvent):
    type: Literal["thinking_end"] = "thinking_end"
    content: str


class ToolCallStartEvent(BlockEvent):
    type: Literal["toolcall_start"] = "toolcall_start"


class ToolCallDeltaEvent(BlockEvent):
    type: Literal["toolcall_delta"] = "toolcall_delta"
    delta: str


class ToolCallEndEvent(BlockEvent):
    type: Literal["toolcall_end"] = "toolcall_end"
    tool_call: ToolCall


class DoneEvent(Wire):
    type: Literal["done"] = "done"
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


class ErrorEvent(Wire):
    """A failed or aborted reply: still a message, keeping whatever content had arrived."""

    type: Literal["error"] = "error"
    reason: Literal["error", "aborted"]
    error: AssistantMessage


AssistantMessageEvent = Annotated[
    StartEvent
    | TextStartEvent | TextDeltaEvent | TextEndEvent
    | ThinkingStartEvent | ThinkingDeltaEvent | ThinkingEndEvent
    | ToolCallStartEvent | ToolCallDeltaEvent | ToolCallEndEvent
    | DoneEvent | ErrorEvent,
    Field(discriminator="type"),
]
TerminalEvent = DoneEvent | ErrorEvent
EVENT = TypeAdapter[AssistantMessageEvent](AssistantMessageEvent)


def parse_event(data: object, where: str = "event") -> AssistantMessageEvent:
    """Validate untrusted event data, or raise ProtocolError naming the field."""
    try:
        return EVENT.validate_python(data)
    except ValidationError as error:
        raise ProtocolError(describe_error(error, where)) from None


def dump_event(event: AssistantMessageEvent) -> dict[str, Any]:
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


def event_message(event: AssistantMessageEvent) -> AssistantMessage:
    """The message an event carries: the partial so far, or the final one."""
    if isinstance(event, DoneEvent):
        return event.message
    if isinstance(event, ErrorEvent):
        return event.error
    return event.partial
