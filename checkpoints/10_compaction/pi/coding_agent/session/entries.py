"""The lines of a session file as Pi writes them (JSONL v3): a header, then one model per entry
type; unknown fields are kept and an unknown type becomes an `UnknownEntry` (never in a context).
Ids and the clock are injected (the same file on every run); timestamps are JavaScript's."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Collection, Container
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, Field, TypeAdapter, ValidationError

from pi.ai import AppMessage, AssistantMessage, SystemMessage, ToolResultMessage, Usage, UserMessage
from pi.ai.content import (ImageContent, Stored, TextContent, ThinkingContent, ToolCall, UserBlock,
                           Wire)
from pi.coding_agent.messages import (AnyMessage, BranchSummaryMessage, CodingMessage,
                                      CompactionSummaryMessage, CustomMessage)

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]  # "max": Pi 1.x
CURRENT_VERSION = 3


class SessionError(Exception):
    """A session file that cannot be read or written: one line naming the file (and line)."""


IdSource = Callable[[], str]
Clock = Callable[[], int]  # milliseconds since 1970-01-01 UTC, like JavaScript's Date.now()
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_TRIES = 100  # Pi's generateId tries 100 random ids before giving up


def sequential_ids(start: int = 1) -> IdSource:
    """Ids 00000001, 00000002, …: deterministic, for tests, demos and migrating old files."""
    counter = itertools.count(start)
    return lambda: f"{next(counter):08x}"


def random_ids(rng: random.Random) -> IdSource:
    """Pi's shape of id (8 lowercase hex digits) drawn from a generator the caller owns."""
    return lambda: f"{rng.getrandbits(32):08x}"


def fresh_id(source: IdSource, taken: Container[str]) -> str:
    """An id from `source` that no entry uses yet; refuses a source that keeps repeating."""
    for _ in range(MAX_TRIES):
        candidate = source()
        if candidate not in taken:
            return candidate
    raise SessionError(f"the id source gave {MAX_TRIES} ids that are all taken")


def iso_timestamp(ms: int) -> str:
    """JavaScript's `new Date(ms).toISOString()`: UTC, milliseconds, a `Z` at the end."""
    moment = EPOCH + timedelta(milliseconds=ms)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ms_from_iso(text: str) -> int | None:
    """Milliseconds since the epoch for an ISO timestamp (a time without offset is UTC); None
    for text that is no time, where Pi's `new Date(text).getTime()` is NaN."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (moment.replace(tzinfo=moment.tzinfo or UTC) - EPOCH) // timedelta(milliseconds=1)


def fixed_clock(start_ms: int, step_ms: int = 1) -> Clock:
    """A clock that starts at `start_ms` and advances `step_ms` at every reading."""
    return itertools.count(start_ms, step_ms).__next__


class SessionHeader(Stored):
    type: Literal["session"] = "session"
    version: int | None = None
    id: str
    timestamp: str
    cwd: str
    parent_session: str | None = None


class Entry(Stored):
    """What every entry has, in Pi's order; a field a newer Pi adds is kept as it came."""

    type: str  # each entry type's own Literal; declared here so that it is dumped first
    id: str
    parent_id: str | None
    timestamp: str


def only_unknown(key: str, known: Collection[type[Stored]]) -> AfterValidator:
    """For the fallback of a union (AppMessage, UnknownEntry), tried only when no known model
    accepts the data: it stands for a `key` (role, type) no known model has, so a broken reply
    or compaction is an error, not an opaque item."""
    values = {cls.model_fields[key].default for cls in known}

    def check(item: Any) -> Any:
        if getattr(item, key) in values:
            raise ValueError(f"not a valid {getattr(item, key)}")
        return item
    return AfterValidator(check)


KnownMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | CodingMessage
StoredMessage = Annotated[
    Annotated[KnownMessage, Field(discriminator="role")]
    | Annotated[AppMessage, only_unknown("role", get_args(KnownMessage))],
    Field(union_mode="left_to_right"),
]


class MessageEntry(Entry):
    type: Literal["message"] = "message"
    message: StoredMessage


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
    usage: Usage | None = None  # what the summary cost (Pi 1.x)
    from_hook: bool | None = None
    system_message: SystemMessage | None = None  # Pi 1.x: the prompt and tools replayed, first


class BranchSummaryEntry(Entry):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str
    summary: str
    details: Any = None
    usage: Usage | None = None
    from_hook: bool | None = None


class UsageEntry(Entry):
    """Pi 1.x: tokens spent outside the conversation (e.g. warming a cache); never in a context."""

    type: Literal["usage"] = "usage"
    kind: str
    provider: str
    model: str
    usage: Usage
    note: str | None = None


AnyBlock = Annotated[TextContent | ThinkingContent | ToolCall | ImageContent,
                    Field(discriminator="type")]


class Replacement(Wire):
    content: str | tuple[AnyBlock, ...]


class ContextEditEntry(Entry):
    """Pi 1.x: from here on the branch, the target's content is replaced, or (None) the target
    is left out of every context; the entry it edits stays as written (history is append-only)."""

    type: Literal["context_edit"] = "context_edit"
    target_id: str
    replacement: Replacement | None


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


class UnknownEntry(Entry):
    """An entry of a type this course does not know (a newer Pi, an extension): kept as it
    came, a node of the tree like any other, and never part of a model's context."""


KnownEntry = (MessageEntry | ThinkingLevelChangeEntry | ModelChangeEntry | CompactionEntry
              | BranchSummaryEntry | CustomEntry | CustomMessageEntry | LabelEntry
              | SessionInfoEntry | UsageEntry | ContextEditEntry)
SessionEntry = Annotated[
    Annotated[KnownEntry, Field(discriminator="type")]
    | Annotated[UnknownEntry, only_unknown("type", get_args(KnownEntry))],
    Field(union_mode="left_to_right"),
]
ENTRY = TypeAdapter[SessionEntry](SessionEntry)


def parse_entry(data: object, where: str) -> SessionEntry:
    """Validate one entry line's decoded JSON, or raise SessionError naming where and what."""
    try:
        return ENTRY.validate_python(data)
    except ValidationError as error:
        raise SessionError(entry_problem(error, where)) from None


def entry_problem(error: ValidationError, where: str) -> str:
    """The first problem as `where: message.content: what`, without the union members pydantic
    puts into the location (for an entry and for its message: the known models and the tag
    tried, or the fallback for one we do not know)."""
    problems = error.errors()
    # A type (or a role) no known model has is only the fallback's problem.
    problem = next((p for p in problems if not p["type"].startswith("union_tag")), problems[0])
    loc = list(problem["loc"])
    for i in reversed(range(len(loc))):
        if str(loc[i]).startswith("tagged-union["):
            del loc[i:i + 2]
        elif str(loc[i]).startswith("function-after["):
            del loc[i]
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    place = f"{where}: {field.lstrip('.')}" if field else where
    return f"{place}: {problem['msg']}"


def message_of(entry: SessionEntry) -> AnyMessage | None:
    """Pi's `getMessageFromEntry`: the message an entry stands for (a compaction or a branch
    summary: its summary, even an empty one), or None for bookkeeping entries."""
    if isinstance(entry, MessageEntry):
        return entry.message
    if isinstance(entry, CustomMessageEntry):
        return CustomMessage(custom_type=entry.custom_type, content=entry.content,
                             display=entry.display, details=entry.details,
                             timestamp=ms_from_iso(entry.timestamp) or 0)
    if isinstance(entry, BranchSummaryEntry):
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id,
                                    timestamp=ms_from_iso(entry.timestamp) or 0)
    if isinstance(entry, CompactionEntry):
        return CompactionSummaryMessage(summary=entry.summary, tokens_before=entry.tokens_before,
                                        timestamp=ms_from_iso(entry.timestamp) or 0)
    return None


def entry_messages(entry: SessionEntry) -> tuple[AnyMessage, ...]:
    """Pi's `sessionEntryToContextMessages`: what one entry of a raw path puts in a context
    (a compaction: the prompt it recorded, if any, then its summary; an empty branch summary:
    nothing)."""
    message = message_of(entry)
    if message is None or (isinstance(entry, BranchSummaryEntry) and not entry.summary):
        return ()
    if isinstance(entry, CompactionEntry) and entry.system_message is not None:
        return (entry.system_message, message)
    return (message,)


def dump_line(item: SessionHeader | SessionEntry) -> dict[str, Any]:
    """The JSON object of a header or entry, exactly as it was read (or as Pi would write it):
    keys in Pi's order, and an entry always has `parentId`, even when it is null (a root), as a
    context edit always has its `replacement` (null: omitted)."""
    data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(item, Entry) and item.parent_id is None:
        data = {"type": item.type, "id": item.id, "parentId": None, **data}
    if isinstance(item, ContextEditEntry):
        data.setdefault("replacement", None)
    return data
