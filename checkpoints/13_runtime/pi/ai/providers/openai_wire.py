"""The inbound half of the OpenAI adapter: each SSE chunk's `choices[0].delta` (text,
reasoning, tool-call pieces by `index`) grows the reply in `ReplyBuilder`, which pushes the
start / delta / end events; the finish reason and the usage come last."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Literal

from pi.ai.content import AssistantBlock, ToolCall
from pi.ai.events import (DoneEvent, StartEvent, TerminalEvent, TextDeltaEvent, TextEndEvent,
                          TextStartEvent, ThinkingDeltaEvent, ThinkingEndEvent, ThinkingStartEvent,
                          ToolCallDeltaEvent, ToolCallEndEvent, ToolCallStartEvent)
from pi.ai.messages import AssistantMessage, Usage
from pi.ai.providers.reply_blocks import Block, WireError, strict_arguments
from pi.ai.stream import AssistantMessageEventStream, error_event

Finished = Literal["stop", "length", "toolUse"]
FINISH_REASONS: dict[str, Finished] = {
    "stop": "stop", "length": "length", "tool_calls": "toolUse", "function_call": "toolUse"}
REASONING_FIELDS = ("reasoning_content", "reasoning")
STARTS: dict[str, type[TextStartEvent] | type[ThinkingStartEvent] | type[ToolCallStartEvent]] = {
    "text": TextStartEvent, "thinking": ThinkingStartEvent, "toolCall": ToolCallStartEvent}
DELTAS: dict[str, type[TextDeltaEvent] | type[ThinkingDeltaEvent] | type[ToolCallDeltaEvent]] = {
    "text": TextDeltaEvent, "thinking": ThinkingDeltaEvent, "toolCall": ToolCallDeltaEvent}


class ReplyBuilder:
    """Grows one reply from chunks and pushes its events into `out`, from `start` on."""

    def __init__(self, out: AssistantMessageEventStream) -> None:
        self.out = out
        self.reply = out.partial  # everything but the content: ids, usage, timestamp
        self.blocks: list[Block] = []
        self.contents: list[AssistantBlock] = []  # each block as the partial message shows it
        self.message: AssistantMessage | None = None  # the partial message last built...
        self.built_from: AssistantMessage | None = None  # ...from this reply (ids, usage)
        self.calls: dict[int, Block] = {}  # a tool call's wire `index` -> its block
        self.open_calls: dict[int, Block] = {}  # calls still taking pieces, by position
        self.fed_calls: set[int] = set()  # open calls given a piece since the last one began
        self.open: Block | None = None  # the text or thinking block now growing
        self.finish_reason: str | None = None
        out.push(StartEvent(partial=self.snapshot()))  # the reply has begun

    def show(self, block: Block, exact: bool) -> None:
        """Bring one block's shown content up to date; the others have not changed."""
        shown = block.content(exact)
        if shown is not self.contents[block.position]:
            self.contents[block.position], self.message = shown, None

    def snapshot(self) -> AssistantMessage:
        """The reply so far, as `show` left its blocks; rebuilt only when something changed,
        so an event costs the same at the thousandth block as at the first."""
        if self.message is None or self.built_from is not self.reply:
            self.message = self.reply.model_copy(update={"content": tuple(self.contents)})
            self.built_from = self.reply
        return self.message

    def settle(self) -> None:
        """Make the stream's partial the whole reply so far, for a failure or abort to keep."""
        for block in self.blocks:
            self.show(block, exact=True)
        self.out.partial = self.snapshot()

    def feed(self, chunk: dict[str, Any]) -> None:
        """Take one parsed chunk: ids, usage, then the first choice's delta."""
        if chunk.get("error"):
            raise WireError(f"the provider sent an error: {json.dumps(chunk['error'])}")
        if chunk.get("id") and self.reply.response_id is None:
            self.reply = self.reply.model_copy(update={"response_id": chunk["id"]})
        if chunk.get("usage"):
            self.reply = self.reply.model_copy(update={"usage": usage_from(chunk["usage"])})
        choice = (chunk.get("choices") or [{}])[0]
        delta = choice.get("delta") or {}
        field = next((f for f in REASONING_FIELDS if delta.get(f)), None)
        if field is not None:
            self.add_text("thinking", delta[field], field)
        if delta.get("content"):
            self.add_text("text", delta["content"])
        for call in delta.get("tool_calls") or []:
            self.add_call(call)
        self.finish_reason = choice.get("finish_reason") or self.finish_reason

    def add_text(
        self, kind: Literal["text", "thinking"], piece: str, field: str | None = None
    ) -> None:
        block = self.open
        if block is None or block.type != kind or block.signature != field:
            block = self.begin(Block(kind, signature=field))
        self.add_piece(piece, block)

    def add_call(self, call: dict[str, Any]) -> None:
        """A piece of the tool call its `index` names: the first names it, the rest add
        argument text. Servers interleave calls, so an unfinished call stays open."""
        index, function = self.call_index(call), call.get("function") or {}
        block = self.calls.get(index)
        if block is None:
            block = self.begin(Block("toolCall", id=call.get("id") or f"call_{index}"))
            self.calls[index] = block
        elif block.position not in self.open_calls:
            raise WireError(f"tool call {index} continued after it had ended")
        elif call.get("id") and call["id"] != block.id:
            raise WireError(f"tool call {index} is {block.id}, but a piece of it says "
                            f"{call['id']}: the pieces cannot be put back together")
        block.name = function.get("name") or block.name
        if function.get("arguments"):
            self.fed_calls.add(block.position)
            self.add_piece(function["arguments"], block)

    def call_index(self, call: dict[str, Any]) -> int:
        """Which call a piece belongs to: the whole number its `index` says. A piece without
        one goes on the call begun last; with several open, nobody can say which."""
        if "index" not in call and len(self.open_calls) > 1:
            raise WireError("a tool call piece without an index while several calls are "
                            "open: the pieces cannot be put back together")
        index = call.get("index", next(reversed(self.calls), 0))
        if isinstance(index, bool) or not isinstance(index, int):
            raise WireError(f"a tool call piece with index {json.dumps(index)}, not a whole number")
        return index

    def begin(self, block: Block) -> Block:
        """Start `block`. A new tool call ends the calls before it whose arguments are
        complete; one still unfinished stays open, since its pieces may go on."""
        if block.type == "toolCall" and self.open_calls:
            self.close_calls(only_complete=True)
        else:
            self.close_calls()
            self.close()
        block.position = len(self.blocks)
        self.blocks.append(block)
        self.contents.append(block.content())
        self.message = None
        self.open = block
        if block.type == "toolCall":
            self.open_calls[block.position] = block
        start = STARTS[block.type]
        self.out.push(start(content_index=block.position, partial=self.snapshot()))
        return block

    def add_piece(self, piece: str, block: Block | None = None) -> None:
        """Grow `block` (the one begun last unless given) by `piece` and push the delta."""
        block = block or self.open
        assert block is not None
        block.add(piece)
        self.show(block, exact=False)
        event = DELTAS[block.type](
            content_index=block.position, delta=piece, partial=self.snapshot())
        self.out.push(event)

    def close(self) -> None:
        """End the block begun last; a tool call's arguments are parsed strictly now."""
        block, self.open = self.open, None
        if block is None:
            return
        if block.type == "toolCall":
            self.close_call(block)
            return
        end = TextEndEvent if block.type == "text" else ThinkingEndEvent
        self.show(block, exact=True)
        self.out.push(end(content_index=block.position, content=block.text,
                          partial=self.snapshot()))

    def close_calls(self, only_complete: bool = False) -> None:
        """End the tool calls still open, in order; or only those whose arguments became
        complete since the last call began (no other can have changed)."""
        if only_complete:
            ending = [self.open_calls[position] for position in sorted(self.fed_calls)
                      if position in self.open_calls and complete(self.open_calls[position])]
        else:
            ending = list(self.open_calls.values())
        self.fed_calls.clear()
        if self.open in ending:
            self.open = None
        for block in ending:
            self.close_call(block)

    def close_call(self, block: Block) -> None:
        """End one open tool call; its arguments are parsed strictly now, or refused."""
        del self.open_calls[block.position]
        block.arguments, problem = strict_arguments(block.text)
        call = ToolCall(id=block.id, name=block.name, arguments=block.arguments)
        self.show(block, exact=True)
        self.out.push(ToolCallEndEvent(content_index=block.position, tool_call=call,
                                       partial=self.snapshot()))
        if problem:
            raise WireError(f"tool call {block.name} ({block.id}): {problem}")

    def finish(self) -> None:
        """The stream is over: close the last block and push the one terminal event."""
        self.close_calls()
        self.close()
        self.out.push(terminal_event(self.snapshot(), self.finish_reason))


def complete(call: Block) -> bool:
    """Whether a tool call's arguments so far are a whole JSON object (nothing can follow)."""
    text = call.text.rstrip()
    return text.endswith("}") and not strict_arguments(text)[1]


def terminal_event(
    message: AssistantMessage, finish_reason: str | None,
    reasons: Mapping[str, Finished] = FINISH_REASONS, what: str = "finish reason",
) -> TerminalEvent:
    """The event that ends a reply. An unknown finish reason (`content_filter`) is an error,
    never a guess: calling it `stop` would present a cut-off answer as complete. Another wire
    passes its own table of `reasons` and its own word for them (`what`). The error texts:
    `stream ended without a {what}` and `unknown {what} {finish_reason!r}`."""
    if finish_reason is None:
        return error_event(message, f"stream ended without a {what}", "error")
    reason = reasons.get(finish_reason)
    if reason is None:
        return error_event(message, f"unknown {what} {finish_reason!r}", "error")
    return DoneEvent(reason=reason, message=message.model_copy(update={"stop_reason": reason}))


def usage_from(data: dict[str, Any]) -> Usage:
    """OpenAI counts cached prompt tokens inside `prompt_tokens`, Pi apart: input = prompt -
    cached, cache_read = cached, total = prompt + output; each read with `token_count` (None: 0)."""
    prompt = token_count(data.get("prompt_tokens"))
    output = token_count(data.get("completion_tokens"))
    details = data.get("prompt_tokens_details")
    cached = token_count(details.get("cached_tokens") if isinstance(details, dict) else 0)
    zero = Usage.zero()
    return zero.model_copy(update={"input": prompt - cached, "output": output,
                                   "cache_read": cached, "total_tokens": prompt + output})


def token_count(value: object) -> int:
    """A whole, non-negative count: a fraction (`12.5`) is rounded, and anything that is not a
    finite number (`NaN`, `1e400`) is 0, so a session file never holds one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return max(0, round(value))
