"""A session's current branch as one self-contained HTML page (rpc `export_html`, `/export`).

No scripts, links or external files (styles inline, images as data URLs), so it opens
anywhere; every text is escaped, since a transcript holds whatever a model or a file said.
The whole path from the first entry to the leaf is shown, compacted parts included.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from pi.ai.messages import json_text
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import CompactionEntry, MessageEntry

STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
.m{border-left:4px solid #ccc;margin:1rem 0;padding:.3rem .8rem}.role{font-weight:600;color:#555}
.user{border-color:#2a6}.assistant{border-color:#36c}.toolResult{border-color:#999}
.error{border-color:#c33;background:#fee}.note{border-color:#c90;background:#ffd}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem;margin:.3rem 0}"""


def block_html(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return f"<pre>{escape(block['text'])}</pre>"
    if kind == "thinking":
        thought = escape(block["thinking"])
        return f"<details><summary>thinking</summary><pre>{thought}</pre></details>"
    if kind == "image":
        source = f"data:{escape(block['mimeType'])};base64,{escape(block['data'])}"
        return f'<img alt="image" src="{source}">'
    if kind == "toolCall":
        arguments = json_text(block.get("arguments", {}), indent=2)
        return f"<div>calls <b>{escape(block['name'])}</b><pre>{escape(arguments)}</pre></div>"
    return f"<pre>{escape(json_text(block))}</pre>"


def body_html(message: dict[str, Any]) -> str:
    role = message.get("role")
    if role == "bashExecution":
        return f"<pre>$ {escape(message['command'])}\n{escape(message['output'])}</pre>"
    if role in ("compactionSummary", "branchSummary"):
        return f"<pre>{escape(message['summary'])}</pre>"
    content = message.get("content", "")
    if isinstance(content, str):
        return f"<pre>{escape(content)}</pre>"
    parts = [block_html(block) for block in content]
    if message.get("errorMessage"):
        parts.append(f"<p>{escape(message['errorMessage'])}</p>")
    return "".join(parts)


def transcript_html(runtime: Runtime) -> str:
    writer, model = runtime.writer, runtime.config.model
    parts: list[str] = []
    for entry in writer.tree.path_to(writer.leaf_id) if writer.leaf_id else []:
        if isinstance(entry, CompactionEntry):
            parts.append(f'<div class="m note"><div class="role">compaction · '
                         f"{entry.tokens_before} tokens before</div><pre>"
                         f"{escape(entry.summary)}</pre></div>")
        elif isinstance(entry, MessageEntry):
            message = entry.message.model_dump(mode="json", by_alias=True, exclude_none=True)
            role = str(message.get("role"))
            failed = message.get("isError") or message.get("stopReason") in ("error", "aborted")
            label = f"{role} · {message['toolName']}" if role == "toolResult" else role
            parts.append(f'<div class="m {role}{" error" if failed else ""}"><div class="role">'
                         f"{escape(label)}</div>{body_html(message)}</div>")
    title = escape(f"Session {writer.header.id}")
    facts = escape(f"{writer.header.cwd} · {writer.header.timestamp} · {model.provider}/"
                   f"{model.id}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}'
            f"</title><style>{STYLE}</style></head><body><h1>{title}</h1><p>{facts}</p>"
            + "\n".join(parts) + "</body></html>\n")


def export_html(runtime: Runtime, target: Path) -> Path:
    """Write the page to `target` (folders created); returns the path written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(transcript_html(runtime), encoding="utf-8")
    return target
