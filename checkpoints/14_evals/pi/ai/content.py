"""The content blocks messages are made of, in Pi's JSON shape: camelCase on the wire,
snake_case in Python, frozen; fields a newer Pi wrote are kept (`Stored`), never refused."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Wire(BaseModel):
    """Base of every protocol model: camelCase JSON, frozen, unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class Stored(Wire):
    """Protocol data that may come from a newer writer: unknown fields are kept, not refused."""

    model_config = ConfigDict(extra="allow")


class TextContent(Stored):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(Stored):
    """Reasoning the model shows; the signature lets some providers verify it on replay."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(Stored):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str


class ToolCall(Stored):
    """A request from the model to run a tool; `id` pairs it with exactly one result."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any]
    partial_json: str | None = None  # found in some real Pi files: a stream cut mid-call
    thought_signature: str | None = None  # Pi's Google provider: replays the model's thought


UserBlock = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantBlock = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
