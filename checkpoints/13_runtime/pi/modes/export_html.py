"""A session's current branch as one self-contained HTML page (rpc `export_html`, `/export`).

Each entry from the first to the leaf, as the session file stores it, escaped: no scripts,
links or external files, since a transcript holds whatever a model or a file said.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from pi.ai.messages import json_text
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import dump_line
from pi.coding_agent.session.show import entry_kind

STYLE = "body{font:15px/1.5 sans-serif;max-width:60rem;margin:2rem auto}pre{white-space:pre-wrap}"


def transcript_html(runtime: Runtime) -> str:
    writer, model = runtime.writer, runtime.config.model
    path = writer.tree.path_to(writer.leaf_id) if writer.leaf_id else []
    entries = [f"<h3>{escape(entry_kind(entry))}</h3>"
               f"<pre>{escape(json_text(dump_line(entry), indent=2))}</pre>" for entry in path]
    title = escape(f"Session {writer.header.id}")
    facts = escape(f"{writer.header.cwd} · {writer.header.timestamp} · "
                   f"{model.provider}/{model.id}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}'
            f"</title><style>{STYLE}</style></head><body><h1>{title}</h1><p>{facts}</p>\n"
            + "\n".join(entries) + "\n</body></html>\n")


def export_html(runtime: Runtime, target: Path) -> Path:
    """Write the page to `target` (folders created); returns the path written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(transcript_html(runtime), encoding="utf-8")
    return target
