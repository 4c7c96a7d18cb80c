"""Every agent and runtime event in Pi's JSON shape, one dict per event.

Json mode writes these lines and rpc mode interleaves them with its responses, so a program
written against Pi's `--mode json` output reads ours too: a `type`, then Pi's camelCase field
names, messages exactly as sessions store them (`dump_message`). Two shapes differ from our
dataclasses on purpose, because Pi's do: a tool's result is Pi's `{content, details}` (the
message that pairs it follows as its own message_start/end), and `auto_compaction_end`
carries the compaction `result` (summary, firstKeptEntryId, tokensBefore, details), looked up
by the caller from the entry the runtime just wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi.agent import (
    AgentEnd,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResult,
    TurnEnd,
)
from pi.ai import ToolResultMessage, dump_event, dump_message
from pi.coding_agent.runtime.events import (
    AutoCompactionEnd,
    AutoCompactionStart,
    AutoRetryEnd,
    AutoRetryStart,
    RuntimeEvent,
    TurnLimitReached,
)
from pi.coding_agent.session.entries import CompactionEntry

CompactionLookup = Callable[[str], CompactionEntry | None]


def tool_result_json(result: ToolResult | ToolResultMessage) -> dict[str, Any]:
    """Pi's AgentToolResult: the blocks the model reads and the details it never sees."""
    shown: dict[str, Any] = {"content": [block.model_dump(mode="json", by_alias=True,
                                                          exclude_none=True)
                                         for block in result.content]}
    if result.details is not None:
        shown["details"] = result.details
    return shown


def compaction_result_json(entry: CompactionEntry) -> dict[str, Any]:
    """Pi's CompactionResult, read back from the entry that recorded it."""
    result: dict[str, Any] = {"summary": entry.summary,
                              "firstKeptEntryId": entry.first_kept_entry_id,
                              "tokensBefore": entry.tokens_before}
    if entry.details is not None:
        result["details"] = entry.details
    return result


def without_none(fields: dict[str, Any]) -> dict[str, Any]:
    """JSON.stringify leaves `undefined` out; so do we."""
    return {key: value for key, value in fields.items() if value is not None}


def event_json(event: RuntimeEvent, compaction: CompactionLookup | None = None) -> dict[str, Any]:
    """The event as Pi writes it: `{"type": …, camelCase fields…}`."""
    head: dict[str, Any] = {"type": event.type}
    if isinstance(event, MessageStart | MessageEnd):
        return {**head, "message": dump_message(event.message)}
    if isinstance(event, MessageUpdate):
        return {**head, "message": dump_message(event.message),
                "assistantMessageEvent": dump_event(event.event)}
    if isinstance(event, TurnEnd):
        return {**head, "message": dump_message(event.message),
                "toolResults": [dump_message(result) for result in event.tool_results]}
    if isinstance(event, AgentEnd):
        return {**head, "messages": [dump_message(message) for message in event.messages]}
    if isinstance(event, ToolExecutionStart | ToolExecutionUpdate | ToolExecutionEnd):
        return {**head, **tool_fields(event)}
    if isinstance(event, AutoCompactionStart | AutoCompactionEnd):
        return {**head, **compaction_fields(event, compaction)}
    if isinstance(event, AutoRetryStart):
        return {**head, "attempt": event.attempt, "maxAttempts": event.max_attempts,
                "delayMs": event.delay_ms, "errorMessage": event.error_message}
    if isinstance(event, AutoRetryEnd):
        return {**head, **without_none({"success": event.success, "attempt": event.attempt,
                                        "finalError": event.final_error})}
    if isinstance(event, TurnLimitReached):  # the course's own event: Pi has no turn limit
        return {**head, "maxTurns": event.max_turns, "message": event.message}
    return head  # agent_start, turn_start: the type says it all


def tool_fields(event: ToolExecutionStart | ToolExecutionUpdate | ToolExecutionEnd,
                ) -> dict[str, Any]:
    fields: dict[str, Any] = {"toolCallId": event.tool_call_id, "toolName": event.tool_name}
    if isinstance(event, ToolExecutionEnd):
        return {**fields, "result": tool_result_json(event.result), "isError": event.is_error}
    fields["args"] = event.args
    if isinstance(event, ToolExecutionUpdate):
        fields["partialResult"] = tool_result_json(event.partial_result)
    return fields


def compaction_fields(event: AutoCompactionStart | AutoCompactionEnd,
                      compaction: CompactionLookup | None) -> dict[str, Any]:
    if isinstance(event, AutoCompactionStart):
        return {"reason": event.reason}
    entry = compaction(event.entry_id) if compaction and event.entry_id else None
    result = compaction_result_json(entry) if entry is not None else None
    return without_none({"result": result, "aborted": False, "willRetry": event.will_retry,
                         "errorMessage": event.error_message})


def entry_lookup(by_id: Mapping[str, Any]) -> CompactionLookup:
    """A CompactionLookup over a session tree's `by_id` (other entry types give None)."""

    def find(entry_id: str) -> CompactionEntry | None:
        entry = by_id.get(entry_id)
        return entry if isinstance(entry, CompactionEntry) else None

    return find
