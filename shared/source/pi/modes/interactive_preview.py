"""Short text for the interactive mode: a tool call's arguments and its result.

A terminal line is precious: arguments are flattened onto one line and cut, and a tool's
output is shown as a preview, its first PREVIEW_LINES lines each cut to PREVIEW_WIDTH, with a
marker saying how many lines were left out. The model still gets the whole result; this is
only what a person sees scroll by.
"""

from __future__ import annotations

import json
from typing import Any

ARGS_WIDTH = 60
PREVIEW_LINES = 4
PREVIEW_WIDTH = 100


def short_args(args: dict[str, Any]) -> str:
    """`path=greeting.txt, limit=5` on one line, cut to ARGS_WIDTH characters."""
    parts = [f"{key}={value if isinstance(value, str) else json.dumps(value)}"
             for key, value in args.items()]
    flat = " ".join(", ".join(parts).split())
    return flat if len(flat) <= ARGS_WIDTH else flat[: ARGS_WIDTH - 1] + "…"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def result_preview(text: str) -> list[str]:
    """The first lines of a tool's output, each cut to fit, then `… N more lines` if any."""
    lines = text.rstrip("\n").splitlines()
    shown = [line if len(line) <= PREVIEW_WIDTH else line[: PREVIEW_WIDTH - 1] + "…"
             for line in lines[:PREVIEW_LINES]]
    hidden = len(lines) - len(shown)
    if hidden:
        shown.append(f"… {hidden} more line{'s' if hidden != 1 else ''}")
    return shown
