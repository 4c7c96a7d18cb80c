"""Print mode (`-p`) and json mode (`--mode json`): run the prompts once, then exit.

As in Pi's print-mode.ts, one function serves both. Print mode writes the last reply's text;
a failed reply, a retry or the turn limit is said on stderr (a failure exits 1). Json mode
writes the session header, then every event as one JSON line.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

from pi.ai import AssistantMessage, TextContent
from pi.ai.messages import LONE_SURROGATE
from pi.coding_agent.runtime.events import (AutoRetryEnd, AutoRetryStart, RuntimeEvent,
                                            TurnLimitReached)
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import dump_line
from pi.modes.events_json import event_json, json_lines


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
    limited: list[TurnLimitReached] = []

    def note(event: RuntimeEvent) -> None:
        if isinstance(event, TurnLimitReached):
            limited.append(event)
        if (line := progress_note(event)) is not None:
            print(line, file=err, flush=True)

    if as_json:
        write = json_lines(out)
        write(dump_line(runtime.writer.header))
        runtime.subscribe(lambda event: write(event_json(event, runtime.writer.tree.by_id)))
    else:
        runtime.subscribe(note)
    for text in prompts:
        await runtime.prompt(text)
    await runtime.flush()  # a session that could not be written is an error too
    replies = [m for m in runtime.messages if isinstance(m, AssistantMessage)]
    if as_json or not replies:
        return 1 if limited else 0  # json mode: the events said it all
    if (reply := replies[-1]).stop_reason in ("error", "aborted"):
        print(encodable(reply.error_message or f"Request {reply.stop_reason}"), file=err)
        return 1
    for block in reply.content:
        if isinstance(block, TextContent):
            print(encodable(block.text), file=out)
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


def run_print(runtime: Runtime, prompts: Sequence[str], out: TextIO | None = None,
              err: TextIO | None = None, *, as_json: bool = False) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return run_to_end(runtime, lambda: answer(runtime, prompts, out, err, as_json), err)
