"""Every agent and runtime event in Pi's JSON shape, and the JSON lines json and rpc modes write.

An event's dataclass fields are Pi's: `{"type": …, camelCase fields…}`, messages as sessions
store them. As in Pi a tool's result is `{content, details}`, and `auto_compaction_end`
carries the compaction `result`, read back from the entry the runtime just wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, TextIO

from pydantic import BaseModel

from pi.ai.messages import json_text
from pi.coding_agent.runtime.events import AutoCompactionEnd, RuntimeEvent
from pi.coding_agent.session.entries import CompactionEntry


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


def without_none(shown: dict[str, Any]) -> dict[str, Any]:
    """JSON.stringify leaves `undefined` out; so do we."""
    return {key: value for key, value in shown.items() if value is not None}


def plain(value: Any) -> Any:
    """Messages, stream events and content blocks as sessions store them; tuples as lists."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return [plain(item) for item in value] if isinstance(value, tuple) else value


def field_json(name: str, value: Any) -> Any:
    if name in ("result", "partial_result"):  # Pi's AgentToolResult, not the message
        return without_none({"content": plain(value.content), "details": value.details})
    return plain(value)


def compaction_result_json(entry: CompactionEntry) -> dict[str, Any]:
    """Pi's CompactionResult, read back from the entry that recorded it."""
    return without_none({"summary": entry.summary, "firstKeptEntryId": entry.first_kept_entry_id,
                         "tokensBefore": entry.tokens_before, "details": entry.details})


def event_json(event: RuntimeEvent, entries: Mapping[str, object] | None = None,
               ) -> dict[str, Any]:
    """The event as Pi writes it; `entries` (the session's by_id) finds a compaction's entry."""
    if isinstance(event, AutoCompactionEnd):
        entry = (entries or {}).get(event.entry_id or "")
        result = compaction_result_json(entry) if isinstance(entry, CompactionEntry) else None
        return without_none({"type": event.type, "result": result, "aborted": False,
                             "willRetry": event.will_retry, "errorMessage": event.error_message})
    return without_none({"assistantMessageEvent" if f.name == "event" else camel(f.name):
                         field_json(f.name, getattr(event, f.name)) for f in fields(event)})


Write = Callable[[dict[str, Any]], None]


def json_lines(stream: TextIO) -> Write:
    """A writer of one compact UTF-8 JSON line per object, flushed at once (whatever the
    locale says: a C locale would reject 'é'; a lone surrogate goes out escaped)."""
    if (reconfigure := getattr(stream, "reconfigure", None)) is not None:
        reconfigure(encoding="utf-8")

    def write(data: dict[str, Any]) -> None:
        stream.write(json_text(data) + "\n")
        stream.flush()

    return write
