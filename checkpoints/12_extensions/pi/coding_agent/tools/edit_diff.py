"""The diff an edit reports, drawn as Pi 1.6's edit-diff.ts draws it: only around the edits."""

from __future__ import annotations

import difflib
import re

BOM = "\ufeff"
MARGIN = 32  # unchanged lines diffed on each side of an edit, as in Pi: far more than shown
HUNK = re.compile(r"@@ -(\d+)(\S*) \+(\d+)(.*)")  # a hunk's header, its numbers apart


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def unified_diff(before: str, after: str, shown: str,
                 replaced: list[tuple[str, str]]) -> tuple[str, int | None]:
    """A unified diff of the change (line endings normalised) and its first new line number;
    `replaced` holds each edit's (old text, new text). Only windows of MARGIN lines around the
    edits are diffed, windows that meet merged, so the cost follows the change, not the file."""
    text, new_text = (to_lf(whole.removeprefix(BOM)) for whole in (before, after))
    old, new = (whole.removesuffix("\n").split("\n") if whole else [] for whole in (text, new_text))
    windows: list[list[int]] = []  # [old start, new start, old end, lines added up to the end]
    added = 0
    parts = [(to_lf(old_text), to_lf(new_text)) for old_text, new_text in replaced]
    for old_part, new_part in sorted(parts, key=lambda part: text.index(part[0])):
        at = text.count("\n", 0, text.index(old_part))  # the line where the edit starts
        if not windows or at - MARGIN > windows[-1][2]:
            windows.append([max(at - MARGIN, 0), max(at - MARGIN, 0) + added])
        added += new_part.count("\n") - old_part.count("\n")
        windows[-1][2:] = [min(at + old_part.count("\n") + 1 + MARGIN, len(old)), added]
    diff = [f"--- a/{shown}", f"+++ b/{shown}"]
    for start, new_start, end, grown in windows:  # the last may end where the file does
        changed = new[new_start:end + grown if end < len(old) else None]
        for line in list(difflib.unified_diff(old[start:end], changed, lineterm=""))[2:]:
            hunk = HUNK.match(line)  # its line numbers count from the window's start
            diff.append(line if hunk is None else f"@@ -{int(hunk[1]) + start}{hunk[2]} "
                        f"+{int(hunk[3]) + new_start}{hunk[4]}")
    pairs = enumerate(zip([*old, None], [*new, None], strict=False))
    first = next((index + 1 for index, (was, now) in pairs if was != now), None)
    return "\n".join(diff) if first else "", first
