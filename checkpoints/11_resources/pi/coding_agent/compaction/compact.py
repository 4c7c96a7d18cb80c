"""Run a prepared compaction: one or two summary calls (the history, then a split turn's first
half); a failed reply is a `SummaryError` value (Pi throws). Leaving a branch of the tree
summarises it the same way (Pi's branch summaries)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Literal, NamedTuple

from pi.ai import (
    AssistantMessage,
    Context,
    Cost,
    Model,
    StreamFunction,
    StreamOptions,
    TextContent,
    ToolCall,
    Usage,
    UserMessage,
)
from pi.coding_agent.compaction.prompts import (
    BRANCH_INSTRUCTIONS,
    BRANCH_PREAMBLE,
    serialize_conversation,
    HISTORY_INSTRUCTIONS,
    SYSTEM_PROMPT,
    UPDATE_INSTRUCTIONS,
    summary_prompt,
    turn_prefix_prompt,
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


@dataclass(frozen=True)
class SummaryOptions(StreamOptions):
    """StreamOptions plus Pi's `reasoning` level, which a summary call may ask for."""

    reasoning: str | None = None  # the session's thinking level, for a reasoning model


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
    if any(isinstance(block, ToolCall) for block in reply.content):
        return SummaryError("error", "the summariser tried to call a tool")
    return None


Summary = tuple[str, Usage]  # a summary's text, and what asking for it used


async def ask_summariser(stream: StreamFunction, model: Model, prompt: str,
                         options: StreamOptions, thinking: str | None = None
                         ) -> Summary | SummaryError:
    """Send one summary request, with the session's thinking level when the model reasons
    (Pi 1.x asks for no output cap: the model's own limit applies); the text and usage, or
    why there is none."""
    kept = {f.name: getattr(options, f.name) for f in fields(StreamOptions)}
    reasoning = thinking if model.reasoning and thinking != "off" else None
    call = SummaryOptions(**{**kept, "max_tokens": None, "reasoning": reasoning})
    message = UserMessage(content=(TextContent(text=prompt),), timestamp=options.clock())
    context = Context(system_prompt=SYSTEM_PROMPT, messages=(message,))
    reply = await stream(model, context, call).result()
    return reply_problem(reply) or ("\n".join(
        block.text for block in reply.content if isinstance(block, TextContent)), reply.usage)


def add_usage(first: Usage, second: Usage) -> Usage:
    """Pi's `combineUsage`: two calls' usage, field by field."""
    cost = Cost(**{name: getattr(first.cost, name) + getattr(second.cost, name)
                   for name in ("input", "output", "cache_read", "cache_write", "total")})
    return Usage(input=first.input + second.input, output=first.output + second.output,
                 cache_read=first.cache_read + second.cache_read,
                 cache_write=first.cache_write + second.cache_write,
                 total_tokens=(first.total_tokens or 0) + (second.total_tokens or 0), cost=cost)


NO_PRIOR_HISTORY = "No prior history."
SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, list[str]] = field(default_factory=dict)  # readFiles, modifiedFiles
    usage: Usage | None = None  # what the summary calls used


async def summary_text(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None, options: StreamOptions, thinking: str | None,
) -> Summary | SummaryError:
    """The summary before the file lists: the history (updating the previous summary), then
    for a split turn a shorter summary of the turn's first half; a split turn with no older
    history keeps the previous summary as it is, or says there was none."""
    previous, split = prep.previous_summary, prep.is_split_turn and prep.turn_prefix_messages
    history: Summary | None = None
    if not split or prep.messages_to_summarize:
        instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
        prompt = summary_prompt(serialize_conversation(prep.messages_to_summarize), instructions,
                                previous, focus)
        answer = await ask_summariser(stream, model, prompt, options, thinking)
        if not split or isinstance(answer, SummaryError):
            return answer
        history = answer
    prompt = turn_prefix_prompt(serialize_conversation(prep.turn_prefix_messages), focus)
    prefix = await ask_summariser(stream, model, prompt, options, thinking)
    if isinstance(prefix, SummaryError):
        return prefix
    if history is None:
        return (previous or NO_PRIOR_HISTORY) + SPLIT_SEPARATOR + prefix[0], prefix[1]
    return history[0] + SPLIT_SEPARATOR + prefix[0], add_usage(history[1], prefix[1])


async def compact(
    prep: CompactionPreparation, model: Model, stream: StreamFunction,
    focus: str | None = None, options: StreamOptions | None = None, thinking: str | None = None,
) -> CompactionResult | SummaryError:
    """Pi's `compact`: the summary, the first kept entry, the size before, the file lists,
    and the usage of the summary calls."""
    summary = await summary_text(prep, model, stream, focus, options or StreamOptions(), thinking)
    if isinstance(summary, SummaryError):
        return summary
    read_files, modified_files = compute_file_lists(prep.file_ops)
    return CompactionResult(
        summary=summary[0] + format_file_operations(read_files, modified_files),
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
        usage=summary[1],
    )


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
    usage: Usage | None = None  # what the summary call used

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
    thinking: str | None = None,
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
    answer = await ask_summariser(stream, model, prompt, options or StreamOptions(), thinking)
    if isinstance(answer, SummaryError):
        return answer
    read_files, modified_files = compute_file_lists(prep.file_ops)
    text = BRANCH_PREAMBLE + answer[0] + format_file_operations(read_files, modified_files)
    return BranchSummary(text, read_files, modified_files, answer[1])
