"""Step 13: print mode (`pi-agent -p "…"`): run the prompts, print the final answer, exit.

This is the mode for scripts and pipes: no events, no questions (an extension that asks for
confirmation hears "no"), just the text of the last reply on stdout. A reply that failed or
was aborted prints its error on stderr and exits with 1, so a shell script can tell. Like
every mode it returns only when the whole run is on disk; a session that could not be written
is an error too.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

from pi.ai import AssistantMessage, TextContent
from pi.coding_agent.runtime.commands import submit
from pi.coding_agent.runtime.runtime import Runtime
from pi.ai.messages import LONE_SURROGATE


async def run_prompts(runtime: Runtime, prompts: Sequence[str]) -> None:
    """Each prompt in turn, each run to its end; then check every write succeeded."""
    for text in prompts:
        await submit(runtime, text)
    await runtime.flush()


def last_reply(runtime: Runtime) -> AssistantMessage | None:
    replies = [m for m in runtime.messages if isinstance(m, AssistantMessage)]
    return replies[-1] if replies else None


async def print_answer(runtime: Runtime, prompts: Sequence[str], out: TextIO,
                       err: TextIO) -> int:
    await run_prompts(runtime, prompts)
    reply = last_reply(runtime)
    if reply is None:
        return 0
    if reply.stop_reason in ("error", "aborted"):
        print(encodable(reply.error_message or f"Request {reply.stop_reason}"), file=err)
        return 1
    for block in reply.content:
        if isinstance(block, TextContent):
            print(encodable(block.text), file=out)
    return 0


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
