"""How the course's tools show a session: each entry in one short line, a tree laid out as
in Pi's tree view, where a chain stays in one column and only a branch point indents, and a
problem in the file as one line."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.text import Text

from course import fail
from pi.ai import (AssistantMessage, SystemMessage, TextContent, ToolCall, ToolResultMessage,
                   UserMessage)
from pi.coding_agent.messages import BashExecutionMessage, CustomMessage
from pi.coding_agent.session.entries import SessionEntry, SessionError
from pi.coding_agent.session.show import entry_kind, printable
from pi.coding_agent.session.tree import SessionTree

PREVIEW = 48


def preview(entry: SessionEntry) -> str:
    """The first words of what an entry says, on one line."""
    flat = printable(" ".join(entry_text(entry).split()))
    return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 1] + "…"


def row_text(entry: SessionEntry, label: str | None, is_leaf: bool) -> Text:
    """`id kind [label] ◀ leaf  preview`, coloured."""
    row = Text.assemble((printable(entry.id), "bold"), " ", (printable(entry_kind(entry)), "cyan"))
    if label:  # a session file is data: an id or a label may hold terminal escapes
        row.append(f" [{printable(label)}]", "yellow")
    if is_leaf:
        row.append(" ◀ leaf", "bold green")
    if words := preview(entry):
        row.append(f"  {words}", "dim")
    return row


# What each type of entry says, by its `type`; an entry of any other type is an UnknownEntry.
ENTRY_TEXT: dict[str, Callable[[Any], str]] = {
    "message": lambda entry: message_text(entry.message),
    "compaction": lambda entry: entry.summary,
    "branch_summary": lambda entry: entry.summary,
    "custom_message": lambda entry: f"{entry.custom_type}: {blocks_text(entry.content)}",
    "model_change": lambda entry: f"{entry.provider}/{entry.model_id}",
    "thinking_level_change": lambda entry: entry.thinking_level,
    "label": lambda entry: f"{entry.target_id} = {entry.label or '(cleared)'}",
    "session_info": lambda entry: entry.name or "",
    "custom": lambda entry: entry.custom_type,
    "context_edit": lambda entry: f"{entry.target_id} "
                                  f"{'omitted' if entry.replacement is None else 'replaced'}",
    "usage": lambda entry: f"{entry.kind}: {entry.provider}/{entry.model}",
}


def entry_text(entry: SessionEntry) -> str:
    if entry.type not in ENTRY_TEXT:
        return "(an entry type this course does not know; kept as it is)"
    return ENTRY_TEXT[entry.type](entry)


def message_text(message: object) -> str:
    if isinstance(message, SystemMessage):  # Pi 1.6's declaration: often sections, no text
        tools = ", ".join(tool.name for tool in message.tools_added or ())
        return blocks_text(message.content) or (
            f"sections: {', '.join(message.sections or {})}; tools: {tools}")
    if isinstance(message, UserMessage | CustomMessage):
        return blocks_text(message.content)
    if isinstance(message, AssistantMessage):
        calls = [f"{b.name}(…)" for b in message.content if isinstance(b, ToolCall)]
        text = " ".join(b.text for b in message.content if isinstance(b, TextContent))
        return " ".join([text, *calls]) or (message.error_message or message.stop_reason)
    if isinstance(message, ToolResultMessage):
        return f"{message.tool_name}: {blocks_text(message.content)}"
    if isinstance(message, BashExecutionMessage):
        return f"$ {message.command}"
    return ""


def blocks_text(content: str | tuple[object, ...]) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.text for b in content if isinstance(b, TextContent))


def tree_rows(tree: SessionTree) -> Iterator[tuple[str | None, SessionEntry]]:
    """(id of the row to draw it under, or None for the top; entry) in depth-first order.

    Pi's tree view rule: a chain stays in one column; each child of a branch point goes one
    column in, and so does the first entry after it, so a branch reads as its first entry
    with its chain under it."""
    roots = tree.children(None)
    stack: list[tuple[str | None, SessionEntry, bool]] = [
        (None, root, len(roots) > 1) for root in reversed(roots)
    ]
    while stack:
        anchor, entry, opens_level = stack.pop()
        yield anchor, entry
        kids = tree.children(entry.id)
        if len(kids) == 1:
            stack.append((entry.id if opens_level else anchor, kids[0], False))
        else:
            stack.extend((entry.id, kid, True) for kid in reversed(kids))


@contextmanager
def one_line_errors(file: Path) -> Iterator[None]:
    """A problem in the file (bad JSON, a loop of parents, a structure too deep to walk) is
    one red line, `FILE: problem`, and exit code 2, never a traceback."""
    try:
        yield
    except SessionError as error:
        text = str(error)  # it may name the file already
        raise fail(printable(text if text.startswith(str(file)) else f"{file}: {text}")) from None
    except RecursionError:
        raise fail(f"{file}: nested too deeply to show") from None
