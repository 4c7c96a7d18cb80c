"""Where to cut: keep the newest ~N tokens verbatim, never starting at a tool result; a cut
inside a turn is a *split turn*, whose first half gets a summary of its own.

The search runs over entries paired with the context messages each produces (Pi 1.6): a raw
path for `find_cut_point`, the projected context for `prepare_compaction`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.entries import SessionEntry, entry_messages
from pi.coding_agent.session.tokens import estimate_tokens

Shown = tuple[SessionEntry, Sequence[AnyMessage]]  # an entry and the messages it puts in a context


@dataclass(frozen=True)
class CutPoint:
    first_kept_entry_index: int
    turn_start_index: int  # -1 when the cut is not inside a turn
    is_split_turn: bool


def shows_role(item: Shown, roles: set[str]) -> bool:
    """Does a non-compaction entry show a message of one of `roles`?"""
    entry, messages = item
    return entry.type != "compaction" and any(m.role in roles for m in messages)


TURN_STARTS = {"user", "bashExecution", "custom", "branchSummary", "compactionSummary"}


def is_cut_point(item: Shown) -> bool:
    """May the kept part begin here? At anything shown but a tool result or a compaction."""
    return shows_role(item, TURN_STARTS | {"assistant"})


def starts_turn(item: Shown) -> bool:
    """Does a turn begin here? At what a person or an extension said, or a summary."""
    return shows_role(item, TURN_STARTS)


def find_turn_start_index(items: Sequence[Shown], index: int, start: int) -> int:
    """The entry that began the turn holding `items[index]` (searching back to `start`), or -1."""
    return next((i for i in range(index, start - 1, -1) if starts_turn(items[i])), -1)


def budget_index(items: Sequence[Shown], start: int, end: int, keep: int) -> int | None:
    """Walking back from `end`, the first index where the kept messages reach `keep` tokens;
    every entry that shows messages counts, an entry that shows none is passed over."""
    kept = 0
    for i in range(end - 1, start - 1, -1):
        tokens = sum(estimate_tokens(message) for message in items[i][1])
        if tokens == 0:
            continue
        kept += tokens
        if kept >= keep:
            return i
    return None


def find_cut_point(path: Sequence[SessionEntry], start: int, end: int, keep: int) -> CutPoint:
    """Pi's `findCutPoint` over `path[start:end]`, keeping about `keep` recent tokens."""
    return cut_point([(entry, entry_messages(entry)) for entry in path], start, end, keep)


def cut_point(items: Sequence[Shown], start: int, end: int, keep: int) -> CutPoint:
    """The cut over `items[start:end]`: the first cut point at or after where the budget is
    reached (the last one when none follows it, the first one when the budget is never
    reached, `start` when there is no cut point at all), moved back over entries that show
    nothing but never past a compaction; then, is it inside a turn?"""
    points = [i for i in range(start, end) if is_cut_point(items[i])]
    if not points:
        return CutPoint(start, -1, False)
    cut = points[0]
    reached = budget_index(items, start, end, keep)
    if reached is not None:
        cut = next((point for point in points if point >= reached), points[-1])
    while cut > start and not items[cut - 1][1] and items[cut - 1][0].type != "compaction":
        cut -= 1  # entries that show nothing (settings, labels) just before it stay with it
    if starts_turn(items[cut]):
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(items, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)
