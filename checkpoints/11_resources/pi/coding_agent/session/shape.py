"""The shape every entry line must have, checked without building the entry.

A long session holds far more entries than any context shows: everything before the latest
compaction is only ever needed to draw the tree. Building a model for each of them costs twice
what decoding the JSON costs, and keeps three to four times the file in memory. So a line that
no context needs yet is only *checked* here: pydantic reads its bytes against these plain
dictionaries (the same fields, types and rules as the models in entries.py and pi.ai, written
as TypedDicts) and nothing but the few fields the tree needs is kept. The model is built from
the same line the first time somebody asks for that entry. A test compares these shapes with
the models field by field, so the two cannot drift apart.
"""

# No `from __future__ import annotations` here: a TypedDict must see `NotRequired` itself.
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Discriminator, Field, Tag, TypeAdapter, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from pi.coding_agent.session.entries import type_tag
from pi.coding_agent.session.message_shapes import (
    KEEP,
    KnownMessageShape,
    MessageShape,
    UserBlockShape,
)


@with_config(KEEP)
class MessageEntryShape(TypedDict):
    type: Literal["message"]
    id: str
    parentId: str | None
    timestamp: str
    message: MessageShape


@with_config(KEEP)
class ThinkingLevelChangeShape(TypedDict):
    type: Literal["thinking_level_change"]
    id: str
    parentId: str | None
    timestamp: str
    thinkingLevel: Literal["off", "minimal", "low", "medium", "high", "xhigh"]


@with_config(KEEP)
class ModelChangeShape(TypedDict):
    type: Literal["model_change"]
    id: str
    parentId: str | None
    timestamp: str
    provider: str
    modelId: str


@with_config(KEEP)
class CompactionShape(TypedDict):
    type: Literal["compaction"]
    id: str
    parentId: str | None
    timestamp: str
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    details: NotRequired[Any]
    fromHook: NotRequired[bool | None]


@with_config(KEEP)
class BranchSummaryEntryShape(TypedDict):
    type: Literal["branch_summary"]
    id: str
    parentId: str | None
    timestamp: str
    fromId: str
    summary: str
    details: NotRequired[Any]
    fromHook: NotRequired[bool | None]


@with_config(KEEP)
class CustomEntryShape(TypedDict):
    type: Literal["custom"]
    id: str
    parentId: str | None
    timestamp: str
    customType: str
    data: NotRequired[Any]


@with_config(KEEP)
class CustomMessageEntryShape(TypedDict):
    type: Literal["custom_message"]
    id: str
    parentId: str | None
    timestamp: str
    customType: str
    content: str | tuple[UserBlockShape, ...]
    display: bool
    details: NotRequired[Any]


@with_config(KEEP)
class LabelShape(TypedDict):
    type: Literal["label"]
    id: str
    parentId: str | None
    timestamp: str
    targetId: str
    label: NotRequired[str | None]


@with_config(KEEP)
class SessionInfoShape(TypedDict):
    type: Literal["session_info"]
    id: str
    parentId: str | None
    timestamp: str
    name: NotRequired[str | None]


@with_config(KEEP)
class UnknownEntryShape(TypedDict):
    type: str
    id: str
    parentId: str | None
    timestamp: str


EntryShape = Annotated[
    Annotated[MessageEntryShape, Tag("message")]
    | Annotated[ThinkingLevelChangeShape, Tag("thinking_level_change")]
    | Annotated[ModelChangeShape, Tag("model_change")]
    | Annotated[CompactionShape, Tag("compaction")]
    | Annotated[BranchSummaryEntryShape, Tag("branch_summary")]
    | Annotated[CustomEntryShape, Tag("custom")]
    | Annotated[CustomMessageEntryShape, Tag("custom_message")]
    | Annotated[LabelShape, Tag("label")]
    | Annotated[SessionInfoShape, Tag("session_info")]
    | Annotated[UnknownEntryShape, Tag("unknown")],
    Discriminator(type_tag),
]
ENTRY_SHAPE = TypeAdapter[Any](EntryShape)


@with_config(KEEP)
class KnownMessageEntryShape(TypedDict):
    type: Literal["message"]
    id: str
    parentId: str | None
    timestamp: str
    message: KnownMessageShape


# Known types and roles only, picked by plain keys (no call back into Python for each line):
# nearly every line is one of these. A line it refuses goes to ENTRY_SHAPE, which decides.
KNOWN_SHAPE = TypeAdapter[Any](Annotated[
    KnownMessageEntryShape | ThinkingLevelChangeShape | ModelChangeShape | CompactionShape
    | BranchSummaryEntryShape | CustomEntryShape | CustomMessageEntryShape | LabelShape
    | SessionInfoShape,
    Field(discriminator="type"),
])
CHECK_KNOWN, CHECK_ANY = KNOWN_SHAPE.validator.validate_json, ENTRY_SHAPE.validator.validate_json


def checked_line(raw: bytes) -> dict[str, Any] | None:
    """The line decoded and checked in one pass, as plain data; None if anything is wrong."""
    try:
        data: dict[str, Any] = CHECK_KNOWN(raw)
    except ValueError:
        try:
            data = CHECK_ANY(raw)  # an unknown type or role, or a bad line
        except ValueError:
            return None
    return data
