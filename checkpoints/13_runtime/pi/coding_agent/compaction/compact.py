"""Run a prepared compaction: one or two summary calls (history, and a split turn's first half
at the same time); a failed reply is a `SummaryError` value (Pi throws). Unlike Pi, a split
turn without older history still summarises the previous summary."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Coroutine
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from pi.ai import (
    AssistantMessage,
    Context,
    Model,
    StreamFunction,
    StreamOptions,
    TextContent,
    UserMessage,
)
from pi.coding_agent.compaction.prompts import (
    serialize_conversation,
    HISTORY_INSTRUCTIONS,
    SYSTEM_PROMPT,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    summary_prompt,
)
from pi.coding_agent.compaction.prepare import (
    CompactionPreparation,
    compute_file_lists,
    format_file_operations,
)
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


def reply_problem(reply: AssistantMessage) -> SummaryError | None:
    """Why a reply cannot be used as a summary; None when the model finished normally."""
    if reply.stop_reason == "error":
        return SummaryError("error", reply.error_message or "the summary call failed")
    if reply.stop_reason == "aborted":
        return SummaryError("aborted", reply.error_message or "the summary call was aborted")
    if reply.stop_reason == "length":
        return SummaryError("length", "the summary was cut off at its output limit")
    return None


async def ask_summariser(stream: StreamFunction, model: Model, prompt: str,
                         options: StreamOptions, max_tokens: int,
                         reasoning: Reasoning | None = None) -> str | SummaryError:
    """Send one summary request with this call's output cap and reasoning level; the summary
    text, or why there is none."""
    kept = {f.name: getattr(options, f.name) for f in fields(StreamOptions)}
    call = SummaryOptions(**{**kept, "max_tokens": max_tokens, "reasoning": reasoning})
    message = UserMessage(content=(TextContent(text=prompt),), timestamp=options.clock())
    context = Context(system_prompt=SYSTEM_PROMPT, messages=(message,))
    reply = await stream(model, context, call).result()
    return reply_problem(reply) or "\n".join(
        block.text for block in reply.content if isinstance(block, TextContent))


NO_PRIOR_HISTORY = "No prior history."
SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]] = field(default_factory=dict)  # readFiles, modifiedFiles


async def summary_text(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None, options: StreamOptions,
) -> str | SummaryError:
    """The summary before the file lists: the history (updating the previous summary), and
    for a split turn a shorter summary of the turn's first half, asked for at the same time."""
    def cap(share: float) -> int:  # a share of the reserve, never above the model's max
        return min(math.floor(share * prep.settings.reserve_tokens), model.max_tokens)

    previous, split = prep.previous_summary, prep.is_split_turn and prep.turn_prefix_messages
    calls: list[Coroutine[Any, Any, str | SummaryError]] = []
    if not split or prep.messages_to_summarize or previous:
        instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
        prompt = summary_prompt(serialize_conversation(prep.messages_to_summarize), instructions,
                                previous, focus)
        calls.append(ask_summariser(stream, model, prompt, options, cap(0.8),
                                    "high" if model.reasoning else None))
    if split:
        prompt = summary_prompt(serialize_conversation(prep.turn_prefix_messages),
                                TURN_PREFIX_INSTRUCTIONS)
        calls.append(ask_summariser(stream, model, prompt, options, cap(0.5)))
    parts = await asyncio.gather(*calls)
    for part in parts:
        if isinstance(part, SummaryError):
            return part
    if not split:
        return parts[0]
    return f"{parts[0] if len(parts) == 2 else NO_PRIOR_HISTORY}{SPLIT_SEPARATOR}{parts[-1]}"


async def compact(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None = None, options: StreamOptions | None = None,
) -> CompactionResult | SummaryError:
    """Pi's `compact`: the summary, the first kept entry, the size before, the file lists."""
    text = await summary_text(prep, model, stream, focus, options or StreamOptions())
    if isinstance(text, SummaryError):
        return text
    read_files, modified_files = compute_file_lists(prep.file_ops)
    return CompactionResult(
        summary=text + format_file_operations(read_files, modified_files),
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )
