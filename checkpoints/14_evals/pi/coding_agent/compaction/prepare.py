"""Everything a compaction needs, worked out before any model is asked (Pi 0.73's
prepareCompaction): the cut, the messages to summarise, the previous summary, the context's
size, and the files read and changed, which travel from one compaction to the next."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi.ai import AssistantMessage, ToolCall
from pi.coding_agent.compaction.cut_points import find_cut_point
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.messages import AnyMessage, BranchSummaryMessage
from pi.coding_agent.session.context import (
    context_messages,
    latest_compaction,
    message_of,
    summary_of,
)
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    SessionEntry,
)
from pi.coding_agent.session.entries import ms_from_iso
from pi.coding_agent.session.tokens import estimate_context_tokens

Range = tuple[int, int]  # path indices [from, to)

TRACKED_TOOLS = {"read": "read", "write": "written", "edit": "edited"}


@dataclass
class FileOps:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)


def add_message_ops(message: AnyMessage, ops: FileOps) -> None:
    """Record the files an assistant message's tool calls read, wrote or edited."""
    if not isinstance(message, AssistantMessage):
        return
    for block in message.content:
        if not isinstance(block, ToolCall) or block.name not in TRACKED_TOOLS:
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


def entry_message(entry: SessionEntry) -> AnyMessage | None:
    """The message `entry` contributes to a summary, or None for bookkeeping entries; unlike
    in a context, a compaction stands for its summary and an empty branch summary counts."""
    if isinstance(entry, CompactionEntry):
        return summary_of(entry)
    if isinstance(entry, BranchSummaryEntry):
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id,
                                    timestamp=ms_from_iso(entry.timestamp))
    return message_of(entry)


@dataclass(frozen=True)
class CompactionPreparation:
    first_kept_entry_id: str
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    messages_to_summarize: list[AnyMessage]
    history_range: Range
    turn_prefix_messages: list[AnyMessage]
    turn_prefix_range: Range | None
    file_ops: FileOps
    settings: CompactionSettings


def summarised_messages(path: Sequence[SessionEntry], start: int, end: int) -> list[AnyMessage]:
    """The messages of `path[start:end]` a summary covers: an old compaction in the range is
    skipped, its summary reaches the model as the previous summary instead."""
    found = (entry_message(entry) for entry in path[start:end]
             if not isinstance(entry, CompactionEntry))
    return [message for message in found if message is not None]


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """Pi's `prepareCompaction`; None when the path ends in a compaction (nothing new)."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    latest = latest_compaction(path)
    previous = path[latest] if latest >= 0 else None
    start = 0  # the previous compaction's first kept entry, else just after it
    if isinstance(previous, CompactionEntry):
        ids = [entry.id for entry in path]
        first_kept = previous.first_kept_entry_id
        start = ids.index(first_kept) if first_kept in ids else latest + 1
    cut = find_cut_point(path, start, len(path), settings.keep_recent_tokens)
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = summarised_messages(path, start, history_end)
    prefix_range = (cut.turn_start_index, cut.first_kept_entry_index) if cut.is_split_turn else None
    prefix = summarised_messages(path, *prefix_range) if prefix_range else []
    ops = FileOps()  # the previous lists (unless an extension wrote them), then tool calls
    if isinstance(previous, CompactionEntry) and not previous.from_hook:
        add_details_ops(previous.details, ops)
    for message in history + prefix:
        add_message_ops(message, ops)
    return CompactionPreparation(
        first_kept_entry_id=path[cut.first_kept_entry_index].id,
        is_split_turn=cut.is_split_turn,
        tokens_before=estimate_context_tokens(
            [message for _, message in context_messages(path)]).tokens,
        previous_summary=previous.summary if isinstance(previous, CompactionEntry) else None,
        messages_to_summarize=history,
        history_range=(start, history_end),
        turn_prefix_messages=prefix,
        turn_prefix_range=prefix_range,
        file_ops=ops,
        settings=settings,
    )
