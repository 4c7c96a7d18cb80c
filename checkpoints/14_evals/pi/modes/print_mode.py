"""Print mode (`-p`) and json mode (`--mode json`): run the prompts once, then exit.

As in Pi's print-mode.ts, one function serves both. Print mode writes the last reply's text
(a failure, a retry or the turn limit on stderr); json mode writes the session header, then
every event as one JSON line in Pi's shape, which rpc mode shares."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import fields
from typing import Any, TextIO

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from pi.agent import MessageUpdate
from pi.ai import AssistantMessage, TextContent, ToolCall
from pi.ai.events import ToolCallStartEvent
from pi.ai.messages import LONE_SURROGATE, json_text
from pi.coding_agent.runtime.events import (AutoRetryEnd, AutoRetryStart, CompactionEnd,
                                            RuntimeEvent, TurnLimitReached)
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import CompactionEntry, dump_line

Write = Callable[[dict[str, Any]], None]


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


def event_json(event: RuntimeEvent) -> dict[str, Any]:
    """The event as Pi writes it; a compaction's end carries the entry it recorded, and a
    streamed delta goes without the message so far (Pi 1.6's `toJsonEvent`)."""
    if isinstance(event, MessageUpdate):
        delta = {"type": event.event.type} | {k: v for k, v in plain(event.event).items()
                                                if k != "partial"}
        if isinstance(event.event, ToolCallStartEvent):  # with the call's id and name
            call = event.message.content[event.event.content_index]
            if isinstance(call, ToolCall):
                delta |= {"id": call.id, "toolName": call.name}
        return {"type": event.type, "usage": plain(event.message.usage),
                "assistantMessageEvent": delta}
    if isinstance(event, CompactionEnd):
        result = compaction_result_json(event.entry) if event.entry is not None else None
        return without_none({"type": event.type, "reason": event.reason, "result": result,
                             "aborted": False, "willRetry": event.will_retry,
                             "errorMessage": event.error_message})
    return without_none({"assistantMessageEvent" if f.name == "event" else to_camel(f.name):
                         field_json(f.name, getattr(event, f.name)) for f in fields(event)})


def settled_json(runtime: Runtime) -> dict[str, Any]:
    """Pi 1.x's `agent_settled`: the run, its retries, compactions and queued messages are over."""
    last = runtime.messages[-1] if runtime.messages else None
    aborted = isinstance(last, AssistantMessage) and last.stop_reason == "aborted"
    return {"type": "agent_settled", "aborted": aborted}


def json_lines(stream: TextIO) -> Write:
    """A writer of one compact UTF-8 JSON line per object, flushed at once (whatever the
    locale says: a C locale would reject 'é'; a lone surrogate goes out escaped)."""
    if (reconfigure := getattr(stream, "reconfigure", None)) is not None:
        reconfigure(encoding="utf-8")

    def write(data: dict[str, Any]) -> None:
        stream.write(json_text(data) + "\n")
        stream.flush()

    return write


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def progress_note(event: RuntimeEvent) -> str | None:
    """The stderr line for an event a person waiting on print mode should hear of."""
    if isinstance(event, AutoRetryStart):
        return (f"retrying in {event.delay_ms / 1000:g} s (attempt {event.attempt} of "
                f"{event.max_attempts}): {first_line(event.error_message)}")
    if isinstance(event, AutoRetryEnd) and not event.success:
        return f"gave up after {event.attempt} attempt(s): {event.final_error}"
    if isinstance(event, TurnLimitReached):
        return (f"stopped: the run reached its limit of {event.max_turns} turns "
                f"(--max-turns {event.max_turns}) before the model finished")
    return None


def encodable(text: str) -> str:
    """Each lone surrogate (half an emoji) as U+FFFD, as Node writes it: UTF-8 cannot encode
    one, and printing it raw would lose the whole answer."""
    return LONE_SURROGATE.sub("\ufffd", text)


async def answer(runtime: Runtime, prompts: Sequence[str], out: TextIO, err: TextIO,
                 as_json: bool) -> int:
    """Every prompt in turn, then the last reply's text (an error or a cut-short reply: exit 1,
    why on `err`); json mode writes the header and every event as JSON lines instead."""
    limited: list[TurnLimitReached] = []

    def note(event: RuntimeEvent) -> None:
        if isinstance(event, TurnLimitReached):
            limited.append(event)
        if (line := progress_note(event)) is not None:
            print(line, file=err, flush=True)

    if as_json:
        write = json_lines(out)
        write(dump_line(runtime.writer.header))
        runtime.subscribe(lambda event: write(event_json(event)))
    else:
        runtime.subscribe(note)
    for text in prompts:
        await runtime.prompt(text)
        if as_json:
            write(settled_json(runtime))
    await runtime.flush()  # a session that could not be written is an error too
    replies = [m for m in runtime.messages if isinstance(m, AssistantMessage)]
    if replies and not as_json:  # json mode: the events said it all
        if (reply := replies[-1]).stop_reason in ("error", "aborted"):
            print(encodable(reply.error_message or f"Request {reply.stop_reason}"), file=err)
            return 1
        for block in reply.content:
            if isinstance(block, TextContent):
                print(encodable(block.text), file=out)
        if reply.stop_reason == "length":  # as Pi 1.6: the text, then why it is short
            print("Response was truncated: the model reached its output token limit.", file=err)
            return 1
    return 1 if limited else 0


def run_to_end(runtime: Runtime, work: Callable[[], Awaitable[int]], err: TextIO) -> int:
    """Run `work`, always close the session; a failure is one line on stderr and code 1."""
    async def guarded() -> int:
        try:
            return await work()
        finally:
            await runtime.close()

    try:
        return asyncio.run(guarded())
    except Exception as error:  # RuntimePoisoned, SessionError: what and where, no traceback
        print(f"error: {error}", file=err)
        return 1


def run_print(runtime: Runtime, prompts: Sequence[str], out: TextIO, err: TextIO, *,
              as_json: bool = False) -> int:
    return run_to_end(runtime, lambda: answer(runtime, prompts, out, err, as_json), err)
