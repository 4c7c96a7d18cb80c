"""Run a prepared compaction: one or two summary calls (history, and a split turn's first half
at the same time); a failed reply is a `SummaryError` value (Pi throws). Unlike Pi, a split
turn without older history still summarises the previous summary. Leaving a branch of the
tree summarises it the same way (Pi's branch summaries)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

from pi.ai import (
    AssistantMessage,
    Context,
    Model,
    StreamFunction,
    StreamOptions,
    TextContent,
    UserMessage,
)
from pi.coding_agent.compaction.prompts import (
    BRANCH_INSTRUCTIONS,
    BRANCH_PREAMBLE,
    serialize_conversation,
    HISTORY_INSTRUCTIONS,
    SYSTEM_PROMPT,
    TURN_PREFIX_INSTRUCTIONS,
    UPDATE_INSTRUCTIONS,
    summary_prompt,
)
from pi.coding_agent.compaction.prepare import (
    CompactionPreparation,
    FileOps,
    add_details_ops,
    add_message_ops,
    compute_file_lists,
    entry_message,
    format_file_operations,
)
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.entries import BranchSummaryEntry, CompactionEntry, SessionEntry
from pi.coding_agent.session.tokens import estimate_tokens

Reasoning = Literal["minimal", "low", "medium", "high", "xhigh"]


@dataclass(frozen=True)
class SummaryOptions(StreamOptions):
    """StreamOptions plus Pi's `reasoning` level, which a summary call may ask for."""

    reasoning: Reasoning | None = None


@dataclass(frozen=True)
class SummaryError:
    """Why no summary was written: the model failed, the call was aborted, or it was cut off."""

    reason: Literal["error", "aborted", "length"]
    text: str


def reply_problem(reply: AssistantMessage) -> SummaryError | None:
    """Why a reply cannot be used as a summary; None when the model finished normally."""
    if reply.stop_reason == "error":
        return SummaryError("error", reply.error_message or "the summary call failed")
    if reply.stop_reason == "aborted":
        return SummaryError("aborted", reply.error_message or "the summary call was aborted")
    if reply.stop_reason == "length":
        return SummaryError("length", "the summary was cut off at its output limit")
    return None


async def ask_summariser(stream: StreamFunction, model: Model, prompt: str,
                         options: StreamOptions, max_tokens: int,
                         reasoning: Reasoning | None = None) -> str | SummaryError:
    """Send one summary request with this call's output cap and reasoning level; the summary
    text, or why there is none."""
    kept = {f.name: getattr(options, f.name) for f in fields(StreamOptions)}
    call = SummaryOptions(**{**kept, "max_tokens": max_tokens, "reasoning": reasoning})
    message = UserMessage(content=(TextContent(text=prompt),), timestamp=options.clock())
    context = Context(system_prompt=SYSTEM_PROMPT, messages=(message,))
    reply = await stream(model, context, call).result()
    return reply_problem(reply) or "\n".join(
        block.text for block in reply.content if isinstance(block, TextContent))


NO_PRIOR_HISTORY = "No prior history."
SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]] = field(default_factory=dict)  # readFiles, modifiedFiles


async def summary_text(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None, options: StreamOptions,
) -> str | SummaryError:
    """The summary before the file lists: the history (updating the previous summary), and
    for a split turn a shorter summary of the turn's first half, asked for at the same time."""
    def cap(share: float) -> int:  # a share of the reserve, never above the model's max
        return min(math.floor(share * prep.settings.reserve_tokens), model.max_tokens)

    previous, split = prep.previous_summary, prep.is_split_turn and prep.turn_prefix_messages
    calls: list[Coroutine[Any, Any, str | SummaryError]] = []
    if not split or prep.messages_to_summarize or previous:
        instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
        prompt = summary_prompt(serialize_conversation(prep.messages_to_summarize), instructions,
                                previous, focus)
        calls.append(ask_summariser(stream, model, prompt, options, cap(0.8),
                                    "high" if model.reasoning else None))
    if split:
        prompt = summary_prompt(serialize_conversation(prep.turn_prefix_messages),
                                TURN_PREFIX_INSTRUCTIONS)
        calls.append(ask_summariser(stream, model, prompt, options, cap(0.5)))
    parts = await asyncio.gather(*calls)
    for part in parts:
        if isinstance(part, SummaryError):
            return part
    if not split:
        return parts[0]
    return f"{parts[0] if len(parts) == 2 else NO_PRIOR_HISTORY}{SPLIT_SEPARATOR}{parts[-1]}"


async def compact(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None = None, options: StreamOptions | None = None,
) -> CompactionResult | SummaryError:
    """Pi's `compact`: the summary, the first kept entry, the size before, the file lists."""
    text = await summary_text(prep, model, stream, focus, options or StreamOptions())
    if isinstance(text, SummaryError):
        return text
    read_files, modified_files = compute_file_lists(prep.file_ops)
    return CompactionResult(
        summary=text + format_file_operations(read_files, modified_files),
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )


BRANCH_SUMMARY_MAX_TOKENS = 2048
NOTHING_TO_SUMMARIZE = "No content to summarize"


class BranchEntries(NamedTuple):
    entries: list[SessionEntry]  # chronological, after the common ancestor
    common_ancestor_id: str | None


class BranchPreparation(NamedTuple):
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
    ancestor = next((e.id for e in reversed(target_path) if e.id in shared), None)
    start = old_ids.index(ancestor) + 1 if ancestor is not None else 0
    return BranchEntries(list(old_path[start:]), ancestor)


def prepare_branch_entries(
    entries: Sequence[SessionEntry], token_budget: int = 0
) -> BranchPreparation:
    """Pi's `prepareBranchEntries`: newest → oldest until the budget (0 = no limit) is used;
    an earlier summary still goes in while less than 90 % of the budget is used."""
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
