"""Step 09: the lines of a session file, as Pi writes them (JSONL, version 3).

The first line is a header; every other line is an entry with an `id`, the `parentId` of the
entry it follows, and a `timestamp`. Entries form a tree: a branch is just a second child.
Each entry type is a model here, so a file is validated line by line as it is read, and an
entry written back is exactly the JSON it came from. Old headers carry extra keys (provider,
modelId, …) that Pi ignores; they are kept, never interpreted.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from pi.ai import AgentMessage, ProtocolError
from pi.ai.content import UserBlock, Wire
from pi.ai.messages import describe_error
from pi.coding_agent.messages import CodingMessage, parse_coding_message

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
CURRENT_VERSION = 3


class SessionHeader(Wire):
    model_config = ConfigDict(extra="allow")
    type: Literal["session"] = "session"
    version: int | None = None
    id: str
    timestamp: str
    cwd: str
    parent_session: str | None = None


class Entry(Wire):
    id: str
    parent_id: str | None
    timestamp: str


class MessageEntry(Entry):
    type: Literal["message"] = "message"
    message: AgentMessage | CodingMessage

    @field_validator("message", mode="before")
    @classmethod
    def typed(cls, data: object) -> object:
        return data if isinstance(data, Wire) else parse_coding_message(data)


class ThinkingLevelChangeEntry(Entry):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: ThinkingLevel


class ModelChangeEntry(Entry):
    type: Literal["model_change"] = "model_change"
    provider: str
    model_id: str


class CompactionEntry(Entry):
    """The summary that replaces everything before `firstKeptEntryId` in later contexts."""

    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    from_hook: bool | None = None


class BranchSummaryEntry(Entry):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = None
    from_hook: bool | None = None


class CustomEntry(Entry):
    """Extension state: stored in the tree, never shown to a model."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class CustomMessageEntry(Entry):
    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | tuple[UserBlock, ...]
    display: bool
    details: Any = None


class LabelEntry(Entry):
    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None


class SessionInfoEntry(Entry):
    type: Literal["session_info"] = "session_info"
    name: str | None = None


SessionEntry = Annotated[
    MessageEntry | ThinkingLevelChangeEntry | ModelChangeEntry | CompactionEntry
    | BranchSummaryEntry | CustomEntry | CustomMessageEntry | LabelEntry | SessionInfoEntry,
    Field(discriminator="type"),
]
ENTRY = TypeAdapter[SessionEntry](SessionEntry)


def parse_entry(data: object, where: str) -> SessionEntry:
    """Validate one entry line's JSON, or raise ProtocolError naming where and what."""
    try:
        return ENTRY.validate_python(data)
    except ValidationError as error:
        raise ProtocolError(describe_error(error, where)) from None


def parse_header(data: object, where: str) -> SessionHeader:
    try:
        return SessionHeader.model_validate(data)
    except ValidationError as error:
        raise ProtocolError(describe_error(error, where)) from None


FIRST_KEYS = ("type", "id", "parentId", "timestamp")


def dump_line(item: SessionHeader | SessionEntry) -> dict[str, Any]:
    """The JSON object of a header or entry, exactly as it was read (or as Pi would write it).

    Keys come in Pi's order, and an entry always has `parentId`, even when it is null (a root).
    """
    data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(item, SessionHeader):
        return data
    data["parentId"] = item.parent_id
    first = {key: data[key] for key in FIRST_KEYS}
    return {**first, **{k: v for k, v in data.items() if k not in first}}
