"""Where to cut: keep the newest ~N tokens verbatim, never starting at a tool result; a cut
inside a turn is a *split turn*, whose first half gets a summary of its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
)
from pi.coding_agent.session.tokens import estimate_tokens

CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary",
                       "compactionSummary"})
TURN_START_ROLES = frozenset({"user", "bashExecution"})


@dataclass(frozen=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 when the cut is not inside a turn
    is_split_turn: bool


def is_cut_point(entry: SessionEntry) -> bool:
    """May the kept part begin here? Never at a tool result; never at a non-message entry
    other than a branch summary or an extension's message."""
    if isinstance(entry, BranchSummaryEntry | CustomMessageEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.message.role in CUT_ROLES


def next_cut_point(path: Sequence[SessionEntry], start: int, end: int) -> int | None:
    """The first index in [start, end) where the kept part may begin (`is_cut_point`)."""
    return next((i for i in range(start, end) if is_cut_point(path[i])), None)


def starts_turn(entry: SessionEntry) -> bool:
    if isinstance(entry, BranchSummaryEntry | CustomMessageEntry):
        return True
    return isinstance(entry, MessageEntry) and entry.message.role in TURN_START_ROLES


def find_turn_start_index(path: Sequence[SessionEntry], index: int, start: int) -> int:
    """The entry that began the turn holding `path[index]` (searching back to `start`), or -1."""
    for i in range(index, start - 1, -1):
        if starts_turn(path[i]):
            return i
    return -1


def budget_index(path: Sequence[SessionEntry], start: int, end: int, keep: int) -> int | None:
    """Walking back from `end`, the first index where the kept messages reach `keep` tokens.

    Only `message` entries count: an extension's message or a branch summary adds nothing.
    """
    kept = 0
    for i in range(end - 1, start - 1, -1):
        entry = path[i]
        if isinstance(entry, MessageEntry):
            kept += estimate_tokens(entry.message)
            if kept >= keep:
                return i
    return None


def find_cut_point(path: Sequence[SessionEntry], start: int, end: int, keep: int) -> CutPoint:
    """Pi's `findCutPoint` over `path[start:end]`, keeping about `keep` recent tokens."""
    first = next_cut_point(path, start, end)
    if first is None:
        return CutPoint(start, -1, False)
    cut = first
    reached = budget_index(path, start, end, keep)
    if reached is not None:
        after = next_cut_point(path, reached, end)
        cut = after if after is not None else first
    while cut > start and not isinstance(path[cut - 1], MessageEntry | CompactionEntry):
        cut -= 1  # settings, labels, extension entries just before the cut stay with it
    entry = path[cut]
    if isinstance(entry, MessageEntry) and entry.message.role == "user":
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(path, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)
