"""The shape of a stored message and its blocks, as plain TypedDicts (see shape.py).

The same fields, types and rules as the models in pi.ai and pi.coding_agent.messages; a test
compares them field by field.
"""

# No `from __future__ import annotations` here: a TypedDict must see `NotRequired` itself.
from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Discriminator, Field, Tag, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from pi.coding_agent.session.entries import role_tag

KEEP = ConfigDict(extra="allow")  # unknown fields are allowed here as in the models


@with_config(KEEP)
class TextShape(TypedDict):
    type: Literal["text"]
    text: str
    textSignature: NotRequired[str | None]


@with_config(KEEP)
class ThinkingShape(TypedDict):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str | None]
    redacted: NotRequired[bool | None]


@with_config(KEEP)
class ImageShape(TypedDict):
    type: Literal["image"]
    data: str
    mimeType: str


@with_config(KEEP)
class ToolCallShape(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]
    partialJson: NotRequired[str | None]
    thoughtSignature: NotRequired[str | None]


UserBlockShape = Annotated[TextShape | ImageShape, Field(discriminator="type")]
AssistantBlockShape = Annotated[TextShape | ThinkingShape | ToolCallShape,
                                Field(discriminator="type")]


@with_config(KEEP)
class CostShape(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


@with_config(KEEP)
class UsageShape(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: NotRequired[int | None]
    cost: CostShape


@with_config(KEEP)
class UserShape(TypedDict):
    role: Literal["user"]
    content: str | tuple[UserBlockShape, ...]
    timestamp: int


@with_config(KEEP)
class AssistantShape(TypedDict):
    role: Literal["assistant"]
    content: tuple[AssistantBlockShape, ...]
    api: str
    provider: str
    model: str
    responseModel: NotRequired[str | None]
    responseId: NotRequired[str | None]
    diagnostics: NotRequired[tuple[dict[str, Any], ...] | None]
    usage: UsageShape
    stopReason: Literal["stop", "length", "toolUse", "error", "aborted"]
    errorMessage: NotRequired[str | None]
    timestamp: int


@with_config(KEEP)
class ToolResultShape(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: tuple[UserBlockShape, ...]
    details: NotRequired[Any]
    isError: bool
    timestamp: int


@with_config(KEEP)
class BashExecutionShape(TypedDict):
    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: NotRequired[int | None]
    cancelled: bool
    truncated: bool
    fullOutputPath: NotRequired[str | None]
    excludeFromContext: NotRequired[bool | None]
    timestamp: int


@with_config(KEEP)
class CustomShape(TypedDict):
    role: Literal["custom"]
    customType: str
    content: str | tuple[UserBlockShape, ...]
    display: bool
    details: NotRequired[Any]
    timestamp: int


@with_config(KEEP)
class BranchSummaryShape(TypedDict):
    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


@with_config(KEEP)
class CompactionSummaryShape(TypedDict):
    role: Literal["compactionSummary"]
    summary: str
    tokensBefore: int
    timestamp: int


@with_config(KEEP)
class AppShape(TypedDict):
    role: str


MessageShape = Annotated[
    Annotated[UserShape, Tag("user")] | Annotated[AssistantShape, Tag("assistant")]
    | Annotated[ToolResultShape, Tag("toolResult")]
    | Annotated[BashExecutionShape, Tag("bashExecution")]
    | Annotated[CustomShape, Tag("custom")]
    | Annotated[BranchSummaryShape, Tag("branchSummary")]
    | Annotated[CompactionSummaryShape, Tag("compactionSummary")]
    | Annotated[AppShape, Tag("other")],
    Discriminator(role_tag),
]
# The same union without the fallback to AppShape: a plain `role` key picks the shape, which
# pydantic does without calling back into Python. Used first; any other role falls back.
KnownMessageShape = Annotated[
    UserShape | AssistantShape | ToolResultShape | BashExecutionShape | CustomShape
    | BranchSummaryShape | CompactionSummaryShape,
    Field(discriminator="role"),
]
