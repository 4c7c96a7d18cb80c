"""Which files the summarised work touched, listed under the summary.

A summary written by a model may forget a path; a list computed from the tool calls cannot.
Only `read`, `write` and `edit` calls with a string `path` count (a bash command could touch
anything, so it is not guessed at). Paths are kept exactly as the model wrote them. The lists
travel from one compaction to the next in the entry's `details`, so they accumulate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi.ai import AssistantMessage, ToolCall
from pi.coding_agent.compaction.entry_messages import AnyMessage

TRACKED_TOOLS = {"read": "read", "write": "written", "edit": "edited"}


@dataclass
class FileOps:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)


def add_message_ops(message: AnyMessage, ops: FileOps) -> None:
    """Record the files an assistant message's tool calls read, wrote or edited.

    Messages and blocks are told apart by their exact class: most of them are not what is
    looked for here, and the class is read from the object itself, which going through a
    list or a tuple reaches anyway. A tag (`role`, `type`) is read from the object's field
    dictionary, elsewhere in memory, and after a long session's other work that memory has
    left the processor's cache; `isinstance` against a pydantic model that does not match
    costs three times as much as either."""
    if type(message) is not AssistantMessage:
        return
    for block in message.content:
        if type(block) is not ToolCall or block.name not in TRACKED_TOOLS:
            continue
        path = block.arguments.get("path")
        if isinstance(path, str) and path:
            getattr(ops, TRACKED_TOOLS[block.name]).add(path)


def add_details_ops(details: Any, ops: FileOps) -> None:
    """Carry the lists an earlier summary stored: read stays read, modified counts as edited."""
    if not isinstance(details, dict):
        return
    for name, target in (("readFiles", ops.read), ("modifiedFiles", ops.edited)):
        files = details.get(name)
        if isinstance(files, list):
            target.update(item for item in files if isinstance(item, str))


def js_sorted(items: Iterable[str]) -> list[str]:
    """Sorted as JavaScript's default sort does: by UTF-16 code units."""
    return sorted(items, key=lambda item: item.encode("utf-16-be", "surrogatepass"))


def compute_file_lists(ops: FileOps) -> tuple[list[str], list[str]]:
    """(read-only files, modified files): a file both read and changed counts as modified."""
    modified = ops.edited | ops.written
    return js_sorted(ops.read - modified), js_sorted(modified)


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The block appended to a summary; empty when no file was touched."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""
