"""Everything a compaction needs, worked out before any model is asked (Pi 1.6's
prepareCompaction): the cut, the messages to summarise, the previous summary, the context's
size, and the files read and changed, which travel from one compaction to the next."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi.ai import AssistantMessage, SystemMessage, ToolCall
from pi.coding_agent.compaction.cut_points import (
    CutPoint,
    Shown,
    budget_index,
    cut_point,
    entry_messages,
    find_turn_start_index,
)
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.messages import AnyMessage, BranchSummaryMessage
from pi.coding_agent.session.context import message_of, projection, summary_of
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    MessageEntry,
    SessionEntry,
)
from pi.coding_agent.session.entries import ms_from_iso
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens
from pi.coding_agent.session.writer import replayed_prompt

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
    turn_prefix_messages: list[AnyMessage]
    file_ops: FileOps
    settings: CompactionSettings


def projected_tokens(path: Sequence[SessionEntry]) -> int:
    """Pi's `estimateProjectedContextTokens`: the usual estimate when the reply whose usage it
    trusts was written after the latest compaction or context edit, else every message
    estimated (the current prompt once), since that usage measured a context that is gone."""
    items = projection(path)
    messages = [message for _, shown in items for message in shown]
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        owners = [entry.id for entry, shown in items for _ in shown]
        ids = [entry.id for entry in path]
        changed = [i for i, entry in enumerate(path)
                   if entry.type in ("compaction", "context_edit")]
        if ids.index(owners[estimate.last_usage_index]) > max(changed, default=-1):
            return estimate.tokens
    prompt = replayed_prompt(messages, 0)
    rest = [message for message in messages if not isinstance(message, SystemMessage)]
    return sum(estimate_tokens(message) for message in ([prompt] if prompt else []) + rest)


def summarised(items: Sequence[Shown]) -> list[AnyMessage]:
    """The conversation in `items`: a compaction's summary is not part of it (it reaches the
    model as the previous summary), nor is a system message (prompt state, not conversation)."""
    return [message for entry, shown in items if entry.type != "compaction"
            for message in shown if message.role != "system"]


def after_a_left_out_retry(suffix: Sequence[Shown]) -> bool:
    """Pi 1.6: is everything after the cut a reply that a context edit left out (an attempt
    being retried) and entries that show nothing? Then the cut moves onto that reply: all
    that is shown gets summarised, the prompt the retry answers as a split turn's first half."""
    def shown_unedited(entry: SessionEntry) -> bool:
        return entry.type != "context_edit" and bool(entry_messages(entry))

    left_out = {entry.id for entry, shown in suffix if shown_unedited(entry) and not shown}
    return (any(isinstance(entry, MessageEntry) and entry.message.role == "assistant"
                and entry.id in left_out for entry, _ in suffix)
            and all(entry.type != "compaction" and (entry.id in left_out
                                                    or not shown_unedited(entry))
                    for entry, _ in suffix)
            and not any(isinstance(entry, ContextEditEntry) and entry.replacement is not None
                        and entry.target_id not in left_out for entry, _ in suffix))


def prepare_compaction(
    path: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """Pi's `prepareCompaction` over the projected context; None when there is nothing to
    compact: the path ends in a compaction, nothing would be kept, or nothing summarised."""
    if not path or isinstance(path[-1], CompactionEntry):
        return None
    items = projection(path)
    previous = items[0][0] if items and isinstance(items[0][0], CompactionEntry) else None
    start = 0 if previous is None else 1  # the previous summary is never cut or summarised
    cut = cut_point(items, start, len(items), settings.keep_recent_tokens)
    point = next((i for i in range(cut.first_kept_entry_index, len(items)) if items[i][1]), None)
    if (point is not None and after_a_left_out_retry(items[point + 1:])
            and budget_index(items, start, len(items), settings.keep_recent_tokens) is not None):
        turn_start = find_turn_start_index(items, point + 1, start)
        cut = CutPoint(point + 1, turn_start, turn_start != -1)
    if cut.first_kept_entry_index >= len(items):
        return None
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    history = summarised(items[start:history_end])
    prefix = summarised(items[cut.turn_start_index:cut.first_kept_entry_index]
                        ) if cut.is_split_turn else []
    if not history and not prefix:
        return None
    ops = FileOps()  # the previous lists (unless an extension wrote them), then tool calls
    if previous is not None and not previous.from_hook:
        add_details_ops(previous.details, ops)
    for message in history + prefix:
        add_message_ops(message, ops)
    return CompactionPreparation(
        first_kept_entry_id=items[cut.first_kept_entry_index][0].id,
        is_split_turn=cut.is_split_turn,
        tokens_before=projected_tokens(path),
        previous_summary=None if previous is None else previous.summary,
        messages_to_summarize=history,
        turn_prefix_messages=prefix,
        file_ops=ops,
        settings=settings,
    )
