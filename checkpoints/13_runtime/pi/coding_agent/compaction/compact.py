"""Run a prepared compaction: one or two summary calls, then the entry to record.

The history summary updates the previous one when there is one. A split turn adds a second,
shorter summary of the turn's first half, asked for at the same time; the two are merged with
a fixed separator. The file lists are appended last. Either every call succeeds and there is
a `CompactionResult`, or there is a `SummaryError` and nothing to record. Recording it is the
session writer's job (`append_compaction`, step 09): one more entry, nothing removed.

One deliberate difference from Pi: when a split turn has no older history, Pi writes
"No prior history." and drops the previous summary. We still ask for the history summary when
a previous summary exists, so it is carried forward.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from pi.ai import Model, StreamFunction, StreamOptions
from pi.coding_agent.compaction.entry_messages import AnyMessage
from pi.coding_agent.compaction.file_ops import compute_file_lists, format_file_operations
from pi.coding_agent.compaction.prepare import CompactionPreparation
from pi.coding_agent.compaction.prompts import (
    HISTORY_INSTRUCTIONS,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    summary_prompt,
)
from pi.coding_agent.compaction.serialize import serialize_conversation
from pi.coding_agent.compaction.summarize import (
    Reasoning,
    SummaryError,
    ask_summariser,
    output_cap,
    summary_options,
)
from pi.coding_agent.messages import convert_to_llm

NO_PRIOR_HISTORY = "No prior history."
SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]] = field(default_factory=dict)  # readFiles, modifiedFiles


def conversation_text(messages: list[AnyMessage]) -> str:
    return serialize_conversation(convert_to_llm(messages))


async def summarize_history(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None, options: StreamOptions,
) -> str | SummaryError:
    previous = prep.previous_summary
    instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
    conversation = conversation_text(prep.messages_to_summarize)
    prompt = summary_prompt(conversation, instructions, previous, focus)
    cap = output_cap(prep.settings.reserve_tokens, 0.8, model)
    reasoning: Reasoning | None = "high" if model.reasoning else None
    return await ask_summariser(stream, model, prompt, summary_options(options, cap, reasoning))


async def summarize_turn_prefix(
    prep: CompactionPreparation, model: Model, stream: StreamFunction, options: StreamOptions
) -> str | SummaryError:
    prompt = summary_prompt(conversation_text(prep.turn_prefix_messages), TURN_PREFIX_INSTRUCTIONS)
    cap = output_cap(prep.settings.reserve_tokens, 0.5, model)
    return await ask_summariser(stream, model, prompt, summary_options(options, cap, None))


async def no_prior_history() -> str:
    return NO_PRIOR_HISTORY


async def summary_text(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None, options: StreamOptions,
) -> str | SummaryError:
    """The summary before the file lists: history alone, or history + turn prefix."""
    if not (prep.is_split_turn and prep.turn_prefix_messages):
        return await summarize_history(prep, model, stream, focus, options)
    has_history = bool(prep.messages_to_summarize) or bool(prep.previous_summary)
    history, prefix = await asyncio.gather(
        summarize_history(prep, model, stream, focus, options) if has_history
        else no_prior_history(),
        summarize_turn_prefix(prep, model, stream, options),
    )
    for part in (history, prefix):
        if isinstance(part, SummaryError):
            return part
    return f"{history}{SPLIT_SEPARATOR}{prefix}"


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

