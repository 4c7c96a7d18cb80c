"""Print mode (`pi-agent -p "…"`): run the prompts, print the final answer, exit.

This is the mode for scripts and pipes: no events, no questions (an extension that asks for
confirmation hears "no"), just the text of the last reply on stdout. A reply that failed or
was aborted prints its error on stderr and exits with 1, so a shell script can tell. Like
every mode it returns only when the whole run is on disk; a session that could not be written
is an error too. Stdout stays the answer alone, so what happens on the way is said on stderr:
each automatic retry (what failed, the wait, the attempt), so an unreachable server is not
fifteen silent seconds, and a run stopped by `--max-turns` (exit 1: it did not finish).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

from pi.ai import AssistantMessage, TextContent
from pi.coding_agent.runtime.events import (
    AutoRetryEnd,
    AutoRetryStart,
    RuntimeEvent,
    TurnLimitReached,
)
from pi.coding_agent.runtime.runtime import Runtime
from pi.ai.messages import LONE_SURROGATE


async def run_prompts(runtime: Runtime, prompts: Sequence[str]) -> None:
    """Each prompt in turn, each run to its end; then check every write succeeded."""
    for text in prompts:
        await runtime.prompt(text)
    await runtime.flush()


def last_reply(runtime: Runtime) -> AssistantMessage | None:
    replies = [m for m in runtime.messages if isinstance(m, AssistantMessage)]
    return replies[-1] if replies else None


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


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


async def print_answer(runtime: Runtime, prompts: Sequence[str], out: TextIO,
                       err: TextIO) -> int:
    limited: list[TurnLimitReached] = []

    def note(event: RuntimeEvent) -> None:
        if isinstance(event, TurnLimitReached):
            limited.append(event)
        if (line := progress_note(event)) is not None:
            print(line, file=err, flush=True)

    unsubscribe = runtime.subscribe(note)
    try:
        await run_prompts(runtime, prompts)
    finally:
        unsubscribe()
    reply = last_reply(runtime)
    if reply is None:
        return 1 if limited else 0
    if reply.stop_reason in ("error", "aborted"):
        print(encodable(reply.error_message or f"Request {reply.stop_reason}"), file=err)
        return 1
    for block in reply.content:
        if isinstance(block, TextContent):
            print(encodable(block.text), file=out)
    return 1 if limited else 0


def encodable(text: str) -> str:
    """`text` with each lone surrogate (half an emoji) shown as U+FFFD, as Node writes it:
    UTF-8 cannot encode one, and printing it raw would lose the whole answer."""
    return LONE_SURROGATE.sub("\ufffd", text)


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
              err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return run_to_end(runtime, lambda: print_answer(runtime, prompts, out, err), err)
