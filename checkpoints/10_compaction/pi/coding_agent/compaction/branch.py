"""Leaving a branch of the tree summarises it (Pi 1.6's branch-summarization.ts): the entries
back to the common ancestor, newest first within a budget, asked for like a compaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pi.ai import Model, StreamFunction, StreamOptions, Usage
from pi.coding_agent.compaction.prompts import (BRANCH_INSTRUCTIONS, BRANCH_PREAMBLE,
                                                serialize_conversation, summary_prompt)
from pi.coding_agent.compaction.utils import (FileLists, FileOps, SummaryError, SummaryRetry,
                                              add_details_ops, add_message_ops, ask_summariser,
                                              compute_file_lists, format_file_operations)
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.context import edited
from pi.coding_agent.session.entries import (BranchSummaryEntry, CompactionEntry, ContextEditEntry,
                                             CustomMessageEntry, MessageEntry, SessionEntry,
                                             entry_messages, message_of)
from pi.coding_agent.session.tokens import estimate_tokens


class BranchEntries(NamedTuple):
    entries: list[SessionEntry]  # chronological, after the common ancestor
    common_ancestor_id: str | None


class BranchPreparation(NamedTuple):
    messages: list[AnyMessage]
    file_ops: FileOps
    total_tokens: int


@dataclass(frozen=True)
class BranchSummary:
    summary: str  # the text to record
    details: FileLists  # the file lists for the entry's `details`
    usage: Usage | None = None  # what the summary call used


def collect_entries_for_branch_summary(old_path: Sequence[SessionEntry],
                                       target_path: Sequence[SessionEntry]) -> BranchEntries:
    """The old path's entries below the deepest entry it shares with the target's path."""
    old_ids = [entry.id for entry in old_path]
    shared = set(old_ids)
    ancestor = next((e.id for e in reversed(target_path) if e.id in shared), None)
    start = old_ids.index(ancestor) + 1 if ancestor is not None else 0
    return BranchEntries(list(old_path[start:]), ancestor)


def prepare_branch_entries(entries: Sequence[SessionEntry],
                           token_budget: int = 0) -> BranchPreparation:
    """Pi's `prepareBranchEntries`: newest → oldest until the budget (0 = no limit) is used;
    an earlier summary still goes in while less than 90 % of the budget is used. A message
    is summarised as its latest context edit left it (a hidden one not at all)."""
    ops = FileOps()
    for entry in entries:
        if isinstance(entry, BranchSummaryEntry) and not entry.from_hook:
            add_details_ops(entry.details, ops)
    edits = {entry.target_id: entry.replacement for entry in entries
             if isinstance(entry, ContextEditEntry)}
    messages: list[AnyMessage] = []
    total = 0
    for entry in reversed(entries):
        message = message_of(entry)
        if entry.id in edits and isinstance(entry, MessageEntry | CustomMessageEntry):
            message = next(iter(edited(edits[entry.id], entry_messages(entry))), None)
        if message is None or message.role == "toolResult":
            continue
        add_message_ops(message, ops)
        tokens = estimate_tokens(message)
        over = token_budget > 0 and total + tokens > token_budget
        if over and not (isinstance(entry, CompactionEntry | BranchSummaryEntry)
                         and total < token_budget * 0.9):
            break
        messages.insert(0, message)
        total += tokens
        if over:
            break
    return BranchPreparation(messages, ops, total)


async def generate_branch_summary(
    entries: Sequence[SessionEntry], model: Model, stream: StreamFunction,
    reserve_tokens: int = 16_384, focus: str | None = None, replace_instructions: bool = False,
    options: StreamOptions | None = None, thinking: str | None = None,
    retry: SummaryRetry | None = None,
) -> BranchSummary | SummaryError:
    """Pi's `generateBranchSummary`: preamble + the model's summary + the file lists."""
    prep = prepare_branch_entries(entries, model.context_window - reserve_tokens)
    if not prep.messages:
        return BranchSummary("No content to summarize", {"readFiles": [], "modifiedFiles": []})
    conversation = serialize_conversation(prep.messages)
    if focus and replace_instructions:
        prompt = summary_prompt(conversation, focus)
    else:
        prompt = summary_prompt(conversation, BRANCH_INSTRUCTIONS, focus=focus)
    answer = await ask_summariser(stream, model, prompt, options or StreamOptions(), thinking,
                                   retry, "Branch summarization")
    if isinstance(answer, SummaryError):
        return answer
    files = compute_file_lists(prep.file_ops)
    text = BRANCH_PREAMBLE + answer[0] + format_file_operations(files)
    return BranchSummary(text, files, answer[1])
