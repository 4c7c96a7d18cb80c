"""Step 04: the inbound half of the OpenAI adapter: stream chunks become canonical events.

Each SSE `data:` line holds one JSON chunk. Its `choices[0].delta` carries a piece of text
(`content`), of reasoning (`reasoning_content` or `reasoning`, from servers that show it), or
of tool calls (`tool_calls`, each piece naming its call by `index`). `ReplyBuilder` grows the
reply block by block and pushes the matching start / delta / end events, each with the
partial message so far. The `finish_reason` is remembered until the stream is over, and the
token usage arrives last, in a chunk with no choices.

A reply can be long (100 KB of tool arguments in thousands of small deltas), and an event per
delta must not cost time in the length of the reply so far, or decoding costs its square.
So a block collects its pieces and joins them only when asked, and the partial message shows
a growing block afresh only while it is small (`EXACT_UP_TO`) or once it has grown by a
quarter since it was last shown: a long text, or a tool call's argument preview, in a delta
event may trail the deltas by at most a fifth of its length. Every `*_end` event and the
terminal event show the whole reply, and so does a reply that fails or is aborted mid-way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pi.ai.content import AssistantBlock, TextContent, ThinkingContent, ToolCall
from pi.ai.events import StartEvent, TextDeltaEvent, TextEndEvent, TextStartEvent
from pi.ai.events import ThinkingDeltaEvent, ThinkingEndEvent, ThinkingStartEvent
from pi.ai.events import ToolCallDeltaEvent, ToolCallEndEvent, ToolCallStartEvent
from pi.ai.messages import AssistantMessage
from pi.ai.partial_json import parse_partial_json, strict_arguments
from pi.ai.providers.openai_finish import terminal_event, usage_from
from pi.ai.stream import AssistantMessageEventStream
REASONING_FIELDS = ("reasoning_content", "reasoning")
STARTS: dict[str, type[TextStartEvent] | type[ThinkingStartEvent] | type[ToolCallStartEvent]] = {
    "text": TextStartEvent, "thinking": ThinkingStartEvent, "toolCall": ToolCallStartEvent}
DELTAS: dict[str, type[TextDeltaEvent] | type[ThinkingDeltaEvent] | type[ToolCallDeltaEvent]] = {
    "text": TextDeltaEvent, "thinking": ThinkingDeltaEvent, "toolCall": ToolCallDeltaEvent}


class WireError(Exception):
    """The server sent something this adapter cannot read; the reply ends as an error."""


EXACT_UP_TO = 1_000  # characters: a block up to this size is shown exactly in every event


@dataclass
class Block:
    """One content block while it grows; for a tool call, `text` is its arguments' JSON."""

    type: Literal["text", "thinking", "toolCall"]
    id: str = ""
    name: str = ""
    signature: str | None = None  # which wire field the reasoning came in
    arguments: dict[str, Any] | None = None  # set once the call is complete
    pieces: list[str] = field(default_factory=list)  # the text, joined only when read
    size: int = 0  # characters so far
    shown: AssistantBlock | None = None  # the content last built, and the state it shows
    shown_as: tuple[int, bool, str | None] | None = None

    @property
    def text(self) -> str:
        if len(self.pieces) > 1:
            self.pieces[:] = ["".join(self.pieces)]
        return self.pieces[0] if self.pieces else ""

    @text.setter
    def text(self, value: str) -> None:
        self.pieces[:], self.size = [value], len(value)

    def add(self, piece: str) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def content(self, exact: bool = True) -> AssistantBlock:
        """The block as a message shows it, rebuilt only when it changed and either `exact`
        is asked or a rebuild is worth it (see the top)."""
        state = (self.size, self.arguments is not None, self.signature)
        if self.shown is None or (state != self.shown_as and (exact or self.worth_rebuilding())):
            self.shown, self.shown_as = self.build(), state
        return self.shown

    def worth_rebuilding(self) -> bool:
        """A small block always; a long one once it grew by a quarter since it was built."""
        shown_size = self.shown_as[0] if self.shown_as is not None else 0
        return self.size <= EXACT_UP_TO or 4 * (self.size - shown_size) >= shown_size

    def build(self) -> AssistantBlock:
        if self.type == "text":
            return TextContent(text=self.text)
        if self.type == "thinking":
            return ThinkingContent(thinking=self.text, thinking_signature=self.signature)
        arguments = parse_partial_json(self.text) if self.arguments is None else self.arguments
        return ToolCall(id=self.id, name=self.name, arguments=arguments)


class ReplyBuilder:
    """Grows one reply from chunks and pushes its events into `out`."""

    def __init__(self, out: AssistantMessageEventStream) -> None:
        self.out = out
        self.reply = out.partial  # everything but the content: ids, usage, timestamp
        self.blocks: list[Block] = []
        self.calls: dict[int, Block] = {}  # a tool call's wire `index` -> its block
        self.open: Block | None = None
        self.finish_reason: str | None = None
        self.last_snapshot: tuple[AssistantMessage, tuple[AssistantBlock, ...],
                                  AssistantMessage] | None = None

    def snapshot(self, exact: bool = False) -> AssistantMessage:
        """The reply so far; only the open block may trail its deltas (see the top). While
        nothing shown changed, events share one message instead of a copy each."""
        content = tuple(block.content(exact or block is not self.open) for block in self.blocks)
        last = self.last_snapshot
        if last is not None and last[0] is self.reply and len(last[1]) == len(content) and all(
                shown is block for shown, block in zip(last[1], content, strict=True)):
            return last[2]
        message = self.reply.model_copy(update={"content": content})
        self.last_snapshot = (self.reply, content, message)
        return message

    def settle(self) -> None:
        """Make the stream's partial the whole reply so far, for a failure or abort to keep."""
        self.out.partial = self.snapshot(exact=True)

    def start(self) -> None:
        self.out.push(StartEvent(partial=self.snapshot()))

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
        block.add(piece)
        self.push_delta(piece)

    def add_call(self, call: dict[str, Any]) -> None:
        """A piece of a tool call: the first names it, the rest add argument text."""
        index, function = call.get("index", 0), call.get("function") or {}
        block = self.calls.get(index)
        if block is None:
            block = self.begin(Block("toolCall", id=call.get("id") or f"call_{index}"))
            self.calls[index] = block
        elif block is not self.open:
            raise WireError(f"tool call {index} continued after another block had started")
        block.name = function.get("name") or block.name
        if function.get("arguments"):
            block.add(function["arguments"])
            self.push_delta(function["arguments"])

    def begin(self, block: Block) -> Block:
        self.close()
        self.blocks.append(block)
        self.open = block
        start = STARTS[block.type]
        self.out.push(start(content_index=len(self.blocks) - 1, partial=self.snapshot()))
        return block

    def push_delta(self, piece: str) -> None:
        assert self.open is not None
        event = DELTAS[self.open.type](
            content_index=len(self.blocks) - 1, delta=piece, partial=self.snapshot())
        self.out.push(event)

    def close(self) -> None:
        """End the open block; a tool call's arguments are parsed strictly now, or refused."""
        block, self.open = self.open, None
        index = len(self.blocks) - 1
        if block is None:
            return
        if block.type != "toolCall":
            end = TextEndEvent if block.type == "text" else ThinkingEndEvent
            self.out.push(end(content_index=index, content=block.text, partial=self.snapshot()))
            return
        block.arguments, problem = strict_arguments(block.text)
        call = ToolCall(id=block.id, name=block.name, arguments=block.arguments)
        partial = self.snapshot()
        self.out.push(ToolCallEndEvent(content_index=index, tool_call=call, partial=partial))
        if problem:
            raise WireError(f"tool call {block.name} ({block.id}): {problem}")

    def finish(self) -> None:
        """The stream is over: close the last block and push the one terminal event."""
        self.close()
        self.out.push(terminal_event(self.snapshot(), self.finish_reason))
