"""Everything a compaction needs, worked out before any model is asked.

Preparing is pure: from the path root→leaf it finds the latest compaction, the cut point, the
messages to summarise, the first half of a split turn, the previous summary to update, how
big the context was, and which files were touched. An extension, a test or a dry run can look
at all of it without spending a model call.

What is new since the latest compaction starts at the entry it kept first (`firstKeptEntryId`),
not after the compaction entry: the entries it kept verbatim are still in the context, so the
next summary must cover them again, or they would vanish from every later context unsummarised.
`tokensBefore` is the whole context's size (summary and kept entries included). Both are Pi
0.73's rules; Pi 0.58.3 started after the compaction entry and counted from there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.coding_agent.compaction.cut_points import CutPoint, find_cut_point
from pi.coding_agent.compaction.entry_messages import AnyMessage, entry_message
from pi.coding_agent.compaction.file_ops import FileOps, add_details_ops, add_message_ops
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.session.context import (
    latest_compaction,
    message_of,
    summary_of,
    visible_entries,
)
from pi.coding_agent.session.entries import CompactionEntry, SessionEntry
from pi.coding_agent.session.tokens import estimate_context_tokens

Range = tuple[int, int]  # path indices [from, to)


@dataclass(frozen=True)
class CompactionPreparation:
    first_kept_entry_id: str
    cut: CutPoint
    tokens_before: int
    previous_summary: str | None
    messages_to_summarize: list[AnyMessage]
    history_range: Range
    turn_prefix_messages: list[AnyMessage]
    turn_prefix_range: Range | None
    file_ops: FileOps
    settings: CompactionSettings

    @property
    def is_split_turn(self) -> bool:
        return self.cut.is_split_turn


def latest_compaction_index(path: Sequence[SessionEntry]) -> int:
    return latest_compaction(path)


def search_start(path: Sequence[SessionEntry], compaction_index: int) -> int:
    """Where the new history begins: the previous compaction's first kept entry, or just
    after the compaction when that entry is not on the path (or there is no compaction)."""
    if compaction_index < 0:
        return 0
    compaction = path[compaction_index]
    assert isinstance(compaction, CompactionEntry)
    ids = [entry.id for entry in path]
    first_kept = compaction.first_kept_entry_id
    return ids.index(first_kept) if first_kept in ids else compaction_index + 1


def summarised_messages(path: Sequence[SessionEntry], start: int, end: int) -> list[AnyMessage]:
    """The messages of `path[start:end]` a summary covers: an old compaction in the range is
    skipped, its summary reaches the model as the previous summary instead."""
    found = (entry_message(entry) for entry in path[start:end]
             if entry.type != "compaction")  # the tag: most entries are not (file_ops.py)
    return [message for message in found if message is not None]


def context_tokens_of(path: Sequence[SessionEntry]) -> int:
    """The estimate for the context this path gives (summary + kept + newer), as Pi counts."""
    compaction, shown = visible_entries(path)
    messages: list[AnyMessage] = [summary_of(compaction)] if compaction is not None else []
    messages += [message for entry in shown if (message := message_of(entry)) is not None]
    return estimate_context_tokens(messages).tokens


def collect_file_ops(previous: SessionEntry | None, messages: list[AnyMessage]) -> FileOps:
    """Files from the previous compaction's lists (unless an extension wrote it) + tool calls."""
    ops = FileOps()
    if isinstance(previous, CompactionEntry) and not previous.from_hook:
        add_details_ops(previous.details, ops)
    for message in messages:
        add_message_ops(message, ops)
    return ops


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """Pi's `prepareCompaction`; None when the path ends in a compaction (nothing new)."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    previous_index = latest_compaction_index(path)
    previous = path[previous_index] if previous_index >= 0 else None
    start, end = search_start(path, previous_index), len(path)
    cut = find_cut_point(path, start, end, settings.keep_recent_tokens)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = summarised_messages(path, start, history_end)
    prefix_range = (cut.turn_start_index, cut.first_kept_entry_index) if cut.is_split_turn else None
    prefix = summarised_messages(path, *prefix_range) if prefix_range else []
    return CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_entry_index].id,
        cut=cut,
        tokens_before=context_tokens_of(path),
        previous_summary=previous.summary if isinstance(previous, CompactionEntry) else None,
        messages_to_summarize=history,
        history_range=(start, history_end),
        turn_prefix_messages=prefix,
        turn_prefix_range=prefix_range,
        file_ops=collect_file_ops(previous, history + prefix),
        settings=settings,
    )
