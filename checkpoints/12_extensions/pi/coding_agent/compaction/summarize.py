"""One summary request through the model boundary, and what can go wrong with it.

A summary is a normal model call: the boundary's `stream(model, context, options)`, scripted
by the MockModel in tests. Its answer is only usable when the model finished: a failed, an
aborted and a cut-off reply (`stopReason` "length") all become a `SummaryError` value, and
the caller writes nothing. Pi throws on a failed reply; we return the error, like the boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Literal

from pi.ai import (
    AssistantMessage,
    Context,
    Model,
    StreamFunction,
    StreamOptions,
    TextContent,
    UserMessage,
)
from pi.coding_agent.compaction.prompts import SYSTEM_PROMPT

Reasoning = Literal["minimal", "low", "medium", "high", "xhigh"]


@dataclass(frozen=True)
class SummaryOptions(StreamOptions):
    """StreamOptions plus Pi's `reasoning` level, which a summary call may ask for."""

    reasoning: Reasoning | None = None


@dataclass(frozen=True)
class SummaryError:
    """Why no summary was written: the model failed, the call was aborted, or it was cut off."""

    reason: Literal["error", "aborted", "length"]
    text: str


def output_cap(reserve_tokens: int, share: float, model: Model) -> int:
    """How many tokens a summary may use: a share of the reserve, never above the model's max."""
    return min(math.floor(share * reserve_tokens), model.max_tokens)


def summary_options(
    base: StreamOptions, max_tokens: int, reasoning: Reasoning | None
) -> SummaryOptions:
    """`base` (signal, key, clock) with this call's output cap and reasoning level."""
    kept = {f.name: getattr(base, f.name) for f in fields(StreamOptions)}
    return SummaryOptions(**{**kept, "max_tokens": max_tokens, "reasoning": reasoning})


def reply_text(reply: AssistantMessage) -> str:
    return "\n".join(block.text for block in reply.content if isinstance(block, TextContent))


def reply_problem(reply: AssistantMessage) -> SummaryError | None:
    """Why a reply cannot be used as a summary; None when the model finished normally."""
    if reply.stop_reason == "error":
        return SummaryError("error", reply.error_message or "the summary call failed")
    if reply.stop_reason == "aborted":
        return SummaryError("aborted", reply.error_message or "the summary call was aborted")
    if reply.stop_reason == "length":
        return SummaryError("length", "the summary was cut off at its output limit")
    return None


async def ask_summariser(
    stream: StreamFunction, model: Model, prompt: str, options: SummaryOptions
) -> str | SummaryError:
    """Send one summary request; the summary text, or why there is none."""
    message = UserMessage(content=(TextContent(text=prompt),), timestamp=options.clock())
    context = Context(system_prompt=SYSTEM_PROMPT, messages=(message,))
    reply = await stream(model, context, options).result()
    return reply_problem(reply) or reply_text(reply)
