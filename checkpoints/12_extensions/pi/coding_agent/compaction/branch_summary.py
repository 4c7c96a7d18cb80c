"""Leaving a branch without forgetting it (Pi's branch summaries): the old path below the
shared ancestor, summarised newest first within a token budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.ai import Model, StreamFunction, StreamOptions
from pi.coding_agent.compaction.compact import SummaryError, ask_summariser
from pi.coding_agent.compaction.prompts import (
    serialize_conversation,
    BRANCH_INSTRUCTIONS,
    BRANCH_PREAMBLE,
    summary_prompt,
)
from pi.coding_agent.compaction.prepare import (
    FileOps,
    add_details_ops,
    add_message_ops,
    compute_file_lists,
    entry_message,
    format_file_operations,
)
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    SessionEntry,
)
from pi.coding_agent.session.tokens import estimate_tokens

BRANCH_SUMMARY_MAX_TOKENS = 2048
NOTHING_TO_SUMMARIZE = "No content to summarize"


@dataclass(frozen=True)
class BranchEntries:
    entries: list[SessionEntry]  # chronological, after the common ancestor
    common_ancestor_id: str | None


@dataclass(frozen=True)
class BranchPreparation:
    messages: list[AnyMessage]
    file_ops: FileOps
    total_tokens: int


@dataclass(frozen=True)
class BranchSummary:
    """The text to record, and the file lists for the entry's `details`."""

    summary: str
    read_files: list[str]
    modified_files: list[str]

    @property
    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}


def collect_entries_for_branch_summary(
    old_path: Sequence[SessionEntry], target_path: Sequence[SessionEntry]
) -> BranchEntries:
    """The old path's entries below the deepest entry it shares with the target's path."""
    old_ids = [entry.id for entry in old_path]
    shared = set(old_ids)
    ancestor = next((i for i in reversed([entry.id for entry in target_path]) if i in shared), None)
    start = old_ids.index(ancestor) + 1 if ancestor is not None else 0
    return BranchEntries(list(old_path[start:]), ancestor)


def prepare_branch_entries(
    entries: Sequence[SessionEntry], token_budget: int = 0
) -> BranchPreparation:
    """Pi's `prepareBranchEntries`: newest → oldest until the budget (0 = no limit) is used."""
    ops = FileOps()
    for entry in entries:
        if isinstance(entry, BranchSummaryEntry) and not entry.from_hook:
            add_details_ops(entry.details, ops)
    messages: list[AnyMessage] = []
    total = 0
    for entry in reversed(entries):
        message = entry_message(entry)
        if message is None or message.role == "toolResult":
            continue
        add_message_ops(message, ops)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            is_summary = isinstance(entry, CompactionEntry | BranchSummaryEntry)
            if is_summary and total < token_budget * 0.9:
                messages.insert(0, message)
                total += tokens
            break
        messages.insert(0, message)
        total += tokens
    return BranchPreparation(messages, ops, total)


async def generate_branch_summary(
    entries: Sequence[SessionEntry], model: Model, stream: StreamFunction,
    reserve_tokens: int = 16_384, focus: str | None = None,
    replace_instructions: bool = False, options: StreamOptions | None = None,
) -> BranchSummary | SummaryError:
    """Pi's `generateBranchSummary`: preamble + the model's summary + the file lists."""
    prep = prepare_branch_entries(entries, model.context_window - reserve_tokens)
    if not prep.messages:
        return BranchSummary(NOTHING_TO_SUMMARIZE, [], [])
    conversation = serialize_conversation(prep.messages)
    if focus and replace_instructions:
        prompt = summary_prompt(conversation, focus)
    else:
        prompt = summary_prompt(conversation, BRANCH_INSTRUCTIONS, focus=focus)
    cap = min(BRANCH_SUMMARY_MAX_TOKENS, model.max_tokens)
    answer = await ask_summariser(stream, model, prompt, options or StreamOptions(), cap)
    if isinstance(answer, SummaryError):
        return answer
    read_files, modified_files = compute_file_lists(prep.file_ops)
    text = BRANCH_PREAMBLE + answer + format_file_operations(read_files, modified_files)
    return BranchSummary(text, read_files, modified_files)

