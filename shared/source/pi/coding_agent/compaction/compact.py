"""Compacting a path (Pi 1.6's compaction.ts): first, without a model, what to cut and what to
summarise (`prepare_compaction`); then one or two summary calls (`compact`), a failed one a
`SummaryError` value (Pi throws). The bookkeeping is in utils.py, branch summaries in branch.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi.ai import Model, StreamFunction, StreamOptions, Usage
from pi.coding_agent.compaction.cut_points import (CutPoint, Shown, budget_index, cut_point,
                                                   find_turn_start_index)
from pi.coding_agent.compaction.prompts import (HISTORY_INSTRUCTIONS, UPDATE_INSTRUCTIONS,
                                                serialize_conversation, summary_prompt,
                                                turn_prefix_prompt)
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.compaction.utils import (FileLists, FileOps, SummaryError, SummaryRetry,
                                              add_details_ops, add_message_ops, add_usage,
                                              after_a_left_out_retry, ask_summariser,
                                              compute_file_lists, format_file_operations,
                                              projected_tokens)
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.context import projection
from pi.coding_agent.session.entries import CompactionEntry, SessionEntry


@dataclass(frozen=True)
class CompactionPreparation:
    first_kept_entry_id: str
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    messages_to_summarize: list[AnyMessage]
    turn_prefix_messages: list[AnyMessage]
    file_ops: FileOps


def summarised(items: Sequence[Shown]) -> list[AnyMessage]:
    """The conversation in `items`: a compaction's summary is not part of it (it reaches the
    model as the previous summary), nor is a system message (prompt state, not conversation)."""
    return [message for entry, shown in items if entry.type != "compaction"
            for message in shown if message.role != "system"]


def prepare_compaction(path: Sequence[SessionEntry],
                       settings: CompactionSettings) -> CompactionPreparation | None:
    """Pi's `prepareCompaction` over the projected context; None when there is nothing to
    compact: the path ends in a compaction, nothing would be kept, or nothing summarised."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    items = projection(path)
    previous = items[0][0] if items and isinstance(items[0][0], CompactionEntry) else None
    start = 0 if previous is None else 1  # the previous summary is never cut or summarised
    cut = cut_point(items, start, len(items), settings.keep_recent_tokens)
    point = next((i for i in range(cut.first_kept_entry_index, len(items)) if items[i][1]), None)
    if (point is not None and after_a_left_out_retry(items[point + 1:])
            and budget_index(items, start, len(items), settings.keep_recent_tokens) is not None):
        turn_start = find_turn_start_index(items, point + 1, start)
        cut = CutPoint(point + 1, turn_start, turn_start != -1)
    if cut.first_kept_entry_index >= len(items):
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = summarised(items[start:history_end])
    prefix = summarised(items[cut.turn_start_index:cut.first_kept_entry_index]
                        ) if cut.is_split_turn else []
    if not history and not prefix:
        return None
    ops = FileOps()  # the previous lists (unless an extension wrote them), then tool calls
    if previous is not None and not previous.from_hook:
        add_details_ops(previous.details, ops)
    for message in history + prefix:
        add_message_ops(message, ops)
    return CompactionPreparation(
        first_kept_entry_id=items[cut.first_kept_entry_index][0].id,
        is_split_turn=cut.is_split_turn, tokens_before=projected_tokens(path),
        previous_summary=None if previous is None else previous.summary,
        messages_to_summarize=history, turn_prefix_messages=prefix, file_ops=ops)


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: FileLists = field(default_factory=dict)
    usage: Usage | None = None  # what the summary calls used


async def compact(prep: CompactionPreparation, model: Model, stream: StreamFunction,
                  focus: str | None = None, options: StreamOptions | None = None,
                  thinking: str | None = None, retry: SummaryRetry | None = None
                  ) -> CompactionResult | SummaryError:
    """Pi's `compact`: the history summarised (updating the previous summary), then for a split
    turn its first half on its own, merged (with no older history, the previous summary as it
    is, or "No prior history."); the file lists appended; the usage of both calls."""
    options = options or StreamOptions()
    previous, split = prep.previous_summary, prep.is_split_turn and prep.turn_prefix_messages
    text, usage = previous or "No prior history.", None  # kept when only a split turn is cut
    if not split or prep.messages_to_summarize:
        instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
        prompt = summary_prompt(serialize_conversation(prep.messages_to_summarize), instructions,
                                previous, focus)
        answer = await ask_summariser(stream, model, prompt, options, thinking, retry)
        if isinstance(answer, SummaryError):
            return answer
        text, usage = answer
    if split:
        prompt = turn_prefix_prompt(serialize_conversation(prep.turn_prefix_messages), focus)
        prefix = await ask_summariser(stream, model, prompt, options, thinking, retry,
                                      "Turn prefix summarization")
        if isinstance(prefix, SummaryError):
            return prefix
        text += "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix[0]
        usage = prefix[1] if usage is None else add_usage(usage, prefix[1])
    files = compute_file_lists(prep.file_ops)
    return CompactionResult(summary=text + format_file_operations(files),
                            first_kept_entry_id=prep.first_kept_entry_id,
                            tokens_before=prep.tokens_before, details=files, usage=usage)
