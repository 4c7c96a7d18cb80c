"""Compacting a path (Pi 1.6's compaction.ts). First, without a model (`prepare_compaction`):
the cut, the messages to summarise, the previous summary, the context's size, and the files read
and changed, which travel from one compaction to the next. Then one or two summary calls (the
history, then a split turn's first half); a failed reply is a `SummaryError` value (Pi throws).
Leaving a branch of the tree summarises it the same way (Pi's branch summaries)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

from pi.ai import (AssistantMessage, Context, Cost, Model, StreamFunction, StreamOptions,
                   SystemMessage, TextContent, ToolCall, Usage, UserMessage)
from pi.coding_agent.compaction.cut_points import (CutPoint, Shown, budget_index, cut_point,
                                                   find_turn_start_index)
from pi.coding_agent.compaction.prompts import (BRANCH_INSTRUCTIONS, BRANCH_PREAMBLE,
                                                HISTORY_INSTRUCTIONS, SYSTEM_PROMPT,
                                                UPDATE_INSTRUCTIONS, serialize_conversation,
                                                summary_prompt, turn_prefix_prompt)
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.context import edited, projection
from pi.coding_agent.session.entries import (BranchSummaryEntry, CompactionEntry, ContextEditEntry,
                                             CustomMessageEntry, MessageEntry, SessionEntry,
                                             entry_messages, message_of)
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


FileLists = dict[str, list[str]]  # a summary entry's `details`: readFiles, modifiedFiles


def compute_file_lists(ops: FileOps) -> FileLists:
    """The read-only and the modified files: a file both read and changed counts as modified."""
    modified = ops.edited | ops.written
    return {"readFiles": js_sorted(ops.read - modified), "modifiedFiles": js_sorted(modified)}


def format_file_operations(files: FileLists) -> str:
    """The block appended to a summary; empty when no file was touched."""
    sections = [f"<{tag}>\n" + "\n".join(files[key]) + f"\n</{tag}>"
                for tag, key in (("read-files", "readFiles"), ("modified-files", "modifiedFiles"))
                if files[key]]
    return "\n\n" + "\n\n".join(sections) if sections else ""


@dataclass(frozen=True)
class CompactionPreparation:
    first_kept_entry_id: str
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    messages_to_summarize: list[AnyMessage]
    turn_prefix_messages: list[AnyMessage]
    file_ops: FileOps


def projected_tokens(path: Sequence[SessionEntry]) -> int:
    """Pi's `estimateProjectedContextTokens`: the usual estimate when the reply whose usage it
    trusts was written after the latest compaction or context edit, else every message
    estimated (the current prompt once), since that usage measured a context that is gone."""
    items = projection(path)
    messages = [message for _, shown in items for message in shown]
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        owner = [entry for entry, shown in items for _ in shown][estimate.last_usage_index]
        after = path[path.index(owner) + 1:]
        if not any(entry.type in ("compaction", "context_edit") for entry in after):
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


def prepare_compaction(path: Sequence[SessionEntry],
                       settings: CompactionSettings) -> CompactionPreparation | None:
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
        is_split_turn=cut.is_split_turn, tokens_before=projected_tokens(path),
        previous_summary=None if previous is None else previous.summary,
        messages_to_summarize=history, turn_prefix_messages=prefix, file_ops=ops)


@dataclass(frozen=True)
class SummaryOptions(StreamOptions):
    """StreamOptions plus Pi's `reasoning` level, which a summary call may ask for."""

    reasoning: str | None = None  # the session's thinking level, for a reasoning model


@dataclass(frozen=True)
class SummaryError:
    """Why no summary was written: the model failed, the call was aborted, or it was cut off."""

    reason: Literal["error", "aborted", "length"]
    text: str


def reply_problem(reply: AssistantMessage, label: str = "Summarization") -> SummaryError | None:
    """Why a reply cannot be used as a summary, in Pi's words for the call `label` names
    ("Summarization", "Turn prefix summarization", "Branch summarization"); None when the
    model finished normally."""
    if reply.stop_reason == "error":
        return SummaryError("error", f"{label} failed: {reply.error_message or 'Unknown error'}")
    if reply.stop_reason == "aborted":
        return SummaryError("aborted", f"{label} was aborted")
    if reply.stop_reason == "length":
        return SummaryError("length", f"{label} failed: generation hit the token cap and the "
                                      "summary is incomplete")
    if any(isinstance(block, ToolCall) for block in reply.content):
        return SummaryError("error", f"{label} attempted to call a tool")
    return None


Summary = tuple[str, Usage]  # a summary's text, and what asking for it used


class SummaryRetry(NamedTuple):
    """Pi's `retryAssistantCall`: a reply `transient(reply, context_window)` calls worth it is
    asked for again after each wait in turn (the runtime's retry policy, step 13)."""

    transient: Callable[[AssistantMessage, int], bool]
    delays_ms: Sequence[int]
    sleep: Callable[[int], Awaitable[None]]


async def ask_summariser(stream: StreamFunction, model: Model, prompt: str, options: StreamOptions,
                         thinking: str | None = None, retry: SummaryRetry | None = None,
                         label: str = "Summarization") -> Summary | SummaryError:
    """Send one summary request, with the session's thinking level when the model reasons
    (Pi 1.x asks for no output cap: the model's own limit applies), retried as `retry` says;
    the text and usage, or why there is none."""
    kept = {f.name: getattr(options, f.name) for f in fields(StreamOptions)}
    reasoning = thinking if model.reasoning and thinking != "off" else None
    call = SummaryOptions(**{**kept, "max_tokens": None, "reasoning": reasoning})
    message = UserMessage(content=(TextContent(text=prompt),), timestamp=options.clock())
    context = Context(system_prompt=SYSTEM_PROMPT, messages=(message,))
    reply = await stream(model, context, call).result()
    if retry is not None:
        for delay in retry.delays_ms:
            if not retry.transient(reply, model.context_window):
                break
            await retry.sleep(delay)
            reply = await stream(model, context, call).result()
    return reply_problem(reply, label) or ("\n".join(
        block.text for block in reply.content if isinstance(block, TextContent)), reply.usage)


def add_usage(first: Usage, second: Usage) -> Usage:
    """Pi's `combineUsage`: two calls' usage, field by field."""
    cost = Cost(**{name: getattr(first.cost, name) + getattr(second.cost, name)
                   for name in ("input", "output", "cache_read", "cache_write", "total")})
    tokens = {name: (getattr(first, name) or 0) + (getattr(second, name) or 0)
              for name in ("input", "output", "cache_read", "cache_write", "total_tokens")}
    return Usage(**tokens, cost=cost)


NO_PRIOR_HISTORY = "No prior history."
SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"


@dataclass(frozen=True)
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: FileLists = field(default_factory=dict)
    usage: Usage | None = None  # what the summary calls used


async def summary_text(prep: CompactionPreparation, model: Model, stream: StreamFunction,
                       focus: str | None, options: StreamOptions, thinking: str | None,
                       retry: SummaryRetry | None) -> Summary | SummaryError:
    """The summary before the file lists: the history (updating the previous summary), then
    for a split turn a shorter summary of the turn's first half; a split turn with no older
    history keeps the previous summary as it is, or says there was none."""
    previous, split = prep.previous_summary, prep.is_split_turn and prep.turn_prefix_messages
    history: Summary | None = None
    if not split or prep.messages_to_summarize:
        instructions = UPDATE_INSTRUCTIONS if previous else HISTORY_INSTRUCTIONS
        prompt = summary_prompt(serialize_conversation(prep.messages_to_summarize), instructions,
                                previous, focus)
        answer = await ask_summariser(stream, model, prompt, options, thinking, retry)
        if not split or isinstance(answer, SummaryError):
            return answer
        history = answer
    prompt = turn_prefix_prompt(serialize_conversation(prep.turn_prefix_messages), focus)
    prefix = await ask_summariser(stream, model, prompt, options, thinking, retry,
                                  "Turn prefix summarization")
    if isinstance(prefix, SummaryError):
        return prefix
    if history is None:
        return (previous or NO_PRIOR_HISTORY) + SPLIT_SEPARATOR + prefix[0], prefix[1]
    return history[0] + SPLIT_SEPARATOR + prefix[0], add_usage(history[1], prefix[1])


async def compact(prep: CompactionPreparation, model: Model, stream: StreamFunction,
                  focus: str | None = None, options: StreamOptions | None = None,
                  thinking: str | None = None, retry: SummaryRetry | None = None
                  ) -> CompactionResult | SummaryError:
    """Pi's `compact`: the summary, the first kept entry, the size before, the file lists,
    and the usage of the summary calls."""
    summary = await summary_text(prep, model, stream, focus, options or StreamOptions(), thinking,
                                 retry)
    if isinstance(summary, SummaryError):
        return summary
    files = compute_file_lists(prep.file_ops)
    return CompactionResult(summary=summary[0] + format_file_operations(files),
                            first_kept_entry_id=prep.first_kept_entry_id,
                            tokens_before=prep.tokens_before, details=files, usage=summary[1])


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
    details: FileLists
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
