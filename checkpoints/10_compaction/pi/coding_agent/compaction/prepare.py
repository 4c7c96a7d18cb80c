"""Step 10: everything a compaction needs, worked out before any model is asked.

Preparing is pure: from the path root→leaf it finds the latest compaction (only what came
after it is new), the cut point, the messages to summarise, the first half of a split turn,
the previous summary to update, how big the context was, and which files were touched. An
extension, a test or a dry run can look at all of it without spending a model call.

One deliberate difference from Pi: the entries an earlier compaction *kept verbatim* (from its
`firstKeptEntryId` up to the compaction entry) are summarised again here, as `carried`
messages. Pi starts after the compaction entry and so drops them from every later context
without summarising them. `carry_kept=False` gives Pi's behaviour exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.coding_agent.compaction.cut_points import CutPoint, find_cut_point
from pi.coding_agent.compaction.entry_messages import AnyMessage, entry_message, messages_between
from pi.coding_agent.compaction.file_ops import FileOps, add_details_ops, add_message_ops
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.session.entries import CompactionEntry, SessionEntry
from pi.coding_agent.session.tokens import estimate_context_tokens
from pi.coding_agent.session.tree import ids_of

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
    carried_messages: list[AnyMessage]  # kept verbatim by the previous compaction
    carried_range: Range | None
    file_ops: FileOps
    settings: CompactionSettings

    @property
    def is_split_turn(self) -> bool:
        return self.cut.is_split_turn

    @property
    def history_messages(self) -> list[AnyMessage]:
        """What the history summary covers: carried messages first, then the new history."""
        return self.carried_messages + self.messages_to_summarize


def latest_compaction_index(path: Sequence[SessionEntry]) -> int:
    for index in range(len(path) - 1, -1, -1):
        if isinstance(path[index], CompactionEntry):
            return index
    return -1


def carried_range(path: Sequence[SessionEntry], compaction_index: int) -> Range | None:
    """The entries the compaction at `compaction_index` kept verbatim, if it kept any."""
    if compaction_index < 0:
        return None
    compaction = path[compaction_index]
    assert isinstance(compaction, CompactionEntry)
    ids = ids_of(path)[:compaction_index]  # read from the tree's nodes: nothing is built
    if compaction.first_kept_entry_id not in ids:
        return None
    return ids.index(compaction.first_kept_entry_id), compaction_index


class MessagesOf:
    """The message of each entry of `path[low:high]`, worked out once; called with a range
    inside it, gives that range's messages (the context, the history and a turn's first half
    all come from the same entries)."""

    def __init__(self, path: Sequence[SessionEntry], low: int, high: int) -> None:
        self.low = low
        self.messages = [entry_message(entry) for entry in path[low:high]]

    def __call__(self, start: int, end: int) -> list[AnyMessage]:
        found = self.messages[start - self.low:end - self.low]
        return [message for message in found if message is not None]


def collect_file_ops(previous: SessionEntry | None, messages: list[AnyMessage]) -> FileOps:
    """Files from the previous compaction's lists (unless an extension wrote it) + tool calls."""
    ops = FileOps()
    if isinstance(previous, CompactionEntry) and not previous.from_hook:
        add_details_ops(previous.details, ops)
    for message in messages:
        add_message_ops(message, ops)
    return ops


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings, carry_kept: bool = True
) -> CompactionPreparation | None:
    """Pi's `prepareCompaction`; None when the path ends in a compaction (nothing new)."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    previous_index = latest_compaction_index(path)
    previous = path[previous_index] if previous_index >= 0 else None
    start, end = previous_index + 1, len(path)
    between = MessagesOf(path, max(previous_index, 0), end)
    before = between(max(previous_index, 0), end)
    cut = find_cut_point(path, start, end, settings.keep_recent_tokens)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = between(start, history_end)
    prefix_range = (cut.turn_start_index, cut.first_kept_entry_index) if cut.is_split_turn else None
    prefix = between(*prefix_range) if prefix_range else []
    kept_range = carried_range(path, previous_index) if carry_kept else None
    carried = messages_between(path, *kept_range) if kept_range else []
    return CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_entry_index].id,
        cut=cut,
        tokens_before=estimate_context_tokens(before).tokens,
        previous_summary=previous.summary if isinstance(previous, CompactionEntry) else None,
        messages_to_summarize=history,
        history_range=(start, history_end),
        turn_prefix_messages=prefix,
        turn_prefix_range=prefix_range,
        carried_messages=carried,
        carried_range=kept_range,
        file_ops=collect_file_ops(previous, carried + history + prefix),
        settings=settings,
    )
