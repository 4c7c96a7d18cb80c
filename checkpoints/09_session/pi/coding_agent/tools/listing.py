"""The common ending of `grep`, `find` and `ls`: a list, capped, with notices.

Each tool caps the *number* of items itself (matches, paths, entries), so the text only needs
the byte cap: 50 KB, no line limit. Whatever limit bites is announced in Pi's single bracketed
line after a blank line, e.g. `[100 matches limit reached. Use limit=200 for more, or refine
pattern. 50.0KB limit reached]`, and recorded in `details` for people and tests.
"""

from __future__ import annotations

from typing import Any

from pi.agent import ToolResult
from pi.coding_agent.tools.truncate import (
    DEFAULT_MAX_BYTES,
    NO_LINE_LIMIT,
    format_size,
    truncate_head,
)

Note = tuple[str, str, Any]  # (notice for the model, details key, details value)


def listing_result(lines: list[str], limit_note: Note | None, extra: Note | None = None) -> (
    ToolResult
):
    """`lines` joined and cut at 50 KB, with the notices in Pi's order: limit, size, extra."""
    result = truncate_head("\n".join(lines), max_lines=NO_LINE_LIMIT)
    size_note: Note | None = None
    if result.truncated:
        size_note = (f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation",
                     result.to_details())
    notes = [note for note in (limit_note, size_note, extra) if note is not None]
    text = result.content
    if notes:
        text += "\n\n[" + ". ".join(notice for notice, _, _ in notes) + "]"
    return ToolResult.text(text, {key: value for _, key, value in notes} or None)
