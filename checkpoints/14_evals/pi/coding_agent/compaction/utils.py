"""What compaction and branch summaries rely on (Pi's compaction/utils.ts and helpers): the files
read and modified, the context's size before, Pi 1.6's cut before a retried reply, and the
summary call: its options and retries, why a reply is no summary, two usages added up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

from pi.ai import (AssistantMessage, Context, Cost, Model, StreamFunction, StreamOptions,
                   SystemMessage, TextContent, ToolCall, Usage, UserMessage)
from pi.coding_agent.compaction.cut_points import Shown
from pi.coding_agent.compaction.prompts import SYSTEM_PROMPT
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.session.context import projection
from pi.coding_agent.session.entries import (ContextEditEntry, MessageEntry, SessionEntry,
                                             entry_messages)
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
class SummaryOptions(StreamOptions):
    reasoning: str | None = None  # the session's thinking level, for a reasoning model


def add_usage(first: Usage, second: Usage) -> Usage:
    """Pi's `combineUsage`: two calls' usage, field by field."""
    cost = Cost(**{name: getattr(first.cost, name) + getattr(second.cost, name)
                   for name in ("input", "output", "cache_read", "cache_write", "total")})
    tokens = {name: (getattr(first, name) or 0) + (getattr(second, name) or 0)
              for name in ("input", "output", "cache_read", "cache_write", "total_tokens")}
    return Usage(**tokens, cost=cost)


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


def projected_tokens(path: Sequence[SessionEntry]) -> int:
    """Pi's `estimateProjectedContextTokens`: the usual estimate, unless a compaction or context
    edit came after the reply whose usage it trusts; then every message, the system messages
    replayed into the one prompt in force (counted once)."""
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


@dataclass(frozen=True)
class SummaryError:
    """Why no summary was written: the model failed, the call was aborted, or it was cut off."""

    reason: Literal["error", "aborted", "length"]
    text: str


def reply_problem(reply: AssistantMessage, label: str = "Summarization") -> SummaryError | None:
    """Why a reply cannot be a summary, in Pi's words for the call `label` names ("Summarization",
    "Turn prefix summarization", "Branch summarization"); None when the model finished normally."""
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


class SummaryRetry(NamedTuple):
    """Pi's `retryAssistantCall`: a reply `transient` calls worth it is asked for again after
    each wait in turn (the runtime's retry policy, step 13)."""

    transient: Callable[[AssistantMessage, int], bool]
    delays_ms: Sequence[int]
    sleep: Callable[[int], Awaitable[None]]


async def ask_summariser(stream: StreamFunction, model: Model, prompt: str, options: StreamOptions,
                         thinking: str | None = None, retry: SummaryRetry | None = None,
                         label: str = "Summarization") -> tuple[str, Usage] | SummaryError:
    """One summary request, with no output cap (Pi 1.x: the model's own limit applies) and the
    session's thinking level for a reasoning model, retried as `retry` says."""
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
