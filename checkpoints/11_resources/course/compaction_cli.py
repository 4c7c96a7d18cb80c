"""Two commands for looking at compaction from the shell, without a model; both print JSON.

`session cut` searches the projected context from the latest compaction's first kept entry, as
`prepare_compaction` does (without step 13's rule for a left-out retry); the threshold
`session should-compact` prints is the largest context that still fits (window − reserve).
A bad file, an unknown leaf or a path that ends in a compaction give one red line and exit
code 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from course import fail
from pi.coding_agent.compaction import thresholds
from pi.coding_agent.compaction.cut_points import cut_point
from pi.coding_agent.session.context import projection
from pi.coding_agent.session.entries import SessionEntry
from pi.coding_agent.session.reader import read_session
from course.session_view import one_line_errors


def cut_report(path: Sequence[SessionEntry], keep_recent: int) -> dict[str, Any] | None:
    """The cut a compaction at the end of `path` would make; None if it ends in a compaction."""
    if not path or path[-1].type == "compaction":
        return None
    items = projection(path)
    start = 1 if items[0][0].type == "compaction" else 0  # a summary is never cut
    point = cut_point(items, start, len(items), keep_recent)
    turn_start = items[point.turn_start_index][0].id if point.is_split_turn else None
    return {"firstKeptEntryId": items[point.first_kept_entry_index][0].id,
            "isSplitTurn": point.is_split_turn, "turnStartEntryId": turn_start}


def path_of(file: Path, leaf: str | None) -> Sequence[SessionEntry]:
    with one_line_errors(file):
        tree = read_session(file).tree
        leaf_id = leaf or tree.leaf_on_load
        if leaf_id is None:
            raise fail(f"{file}: the session has no entries")
        return tree.path_to(leaf_id)


def cut(
    file: Annotated[Path, typer.Argument(help="a Pi session file (.jsonl)")],
    leaf: Annotated[str | None, typer.Option(help="leaf entry id (default: the last entry)")]
    = None,
    keep_recent: Annotated[int, typer.Option(min=0, help="tokens to keep verbatim")] = 20_000,
) -> None:
    """Where a compaction at LEAF would cut: first kept entry, split turn, turn start."""
    path = path_of(file, leaf)
    report = cut_report(path, keep_recent)
    if report is None:
        raise fail(f"{file}: the path to {path[-1].id} ends in a compaction (already compacted)")
    print(json.dumps(report))


def should_compact(
    tokens: Annotated[int, typer.Option(min=0, help="the context size in tokens")],
    window: Annotated[int, typer.Option(min=0, help="the model's context window")],
    reserve: Annotated[int, typer.Option(min=0, help="tokens kept free for the reply")]
    = thresholds.DEFAULT_COMPACTION_SETTINGS.reserve_tokens,
) -> None:
    """Would Pi compact a context of TOKENS in WINDOW? (Only above window − reserve.)"""
    settings = thresholds.CompactionSettings(reserve_tokens=reserve)
    answer = thresholds.should_compact(tokens, window, settings)
    threshold = thresholds.compaction_threshold(window, settings)
    print(json.dumps({"shouldCompact": answer, "threshold": threshold}))
