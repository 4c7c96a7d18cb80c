"""The inbound half of the Anthropic adapter: named SSE events become our events.

Anthropic names every event (`event: content_block_delta`) and says which content block it
is about (`index`). A reply is framed by `message_start` (ids, input usage) and
`message_delta` (stop reason, output usage) + `message_stop`; in between, each block has a
`content_block_start`, some deltas and a `content_block_stop`. Deltas carry text
(`text_delta`), reasoning (`thinking_delta`), the reasoning's signature (`signature_delta`,
no event of ours: it only completes the block) or a piece of a tool call's input JSON
(`input_json_delta`). The step 04 `ReplyBuilder` grows the reply and pushes the events;
this module only reads the wire into it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi.ai.content import AssistantBlock, ThinkingContent
from pi.ai.providers.anthropic_finish import terminal_event, usage_from
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.providers.reply_blocks import Block, WireError

Data = dict[str, Any]
DELTAS = {"text_delta": ("text", "text"), "thinking_delta": ("thinking", "thinking"),
          "input_json_delta": ("toolCall", "partial_json")}  # delta type -> block type, field


@dataclass
class RedactedBlock(Block):
    """Reasoning the provider encrypted: no text, only the data to send back (`signature`)."""

    def build(self) -> AssistantBlock:
        return ThinkingContent(thinking="", thinking_signature=self.signature, redacted=True)


class AnthropicReader:
    """Feeds one reply's events, by name, into a ReplyBuilder."""

    def __init__(self, builder: ReplyBuilder) -> None:
        self.builder = builder
        self.index: int | None = None  # the wire index of the open block
        self.stop_reason: str | None = None
        self.stopped = False  # message_stop arrived: the reply is complete
        self.handlers: dict[str, Callable[[Data], None]] = {
            "message_start": self.message_start, "content_block_start": self.block_start,
            "content_block_delta": self.block_delta, "content_block_stop": self.block_stop,
            "message_delta": self.message_delta, "message_stop": self.message_stop,
            "error": self.error}

    def feed(self, name: str, data: Data) -> None:
        """Take one event (its `type`, else its SSE name); `ping` and event types added later
        are ignored, as Anthropic asks of its clients."""
        kind = data.get("type")
        handler = self.handlers.get(kind if isinstance(kind, str) else name)
        if handler is not None:
            handler(data)

    def message_start(self, data: Data) -> None:
        message = data.get("message") or {}
        update: Data = {"usage": usage_from(self.builder.reply.usage, message.get("usage") or {})}
        if isinstance(message.get("id"), str):
            update["response_id"] = message["id"]
        self.builder.reply = self.builder.reply.model_copy(update=update)

    def block_start(self, data: Data) -> None:
        block = data.get("content_block") or {}
        kind = block.get("type")
        if kind == "text":
            started = Block("text")
        elif kind == "thinking":
            started = Block("thinking")
        elif kind == "redacted_thinking":
            started = RedactedBlock("thinking", signature=str(block.get("data", "")))
        elif kind == "tool_use":
            started = Block("toolCall", id=str(block.get("id", "")),
                            name=str(block.get("name", "")))
        else:
            raise WireError(f"content block {data.get('index')} is of a type this adapter "
                            f"cannot read: {kind!r}")
        self.builder.begin(started)
        self.index = data.get("index")
        if kind == "text" and block.get("text"):
            self.add(str(block["text"]))

    def block_delta(self, data: Data) -> None:
        open_block, delta = self.open_block(data), data.get("delta") or {}
        kind = delta.get("type")
        if kind == "signature_delta" and open_block.type == "thinking":
            open_block.signature = (open_block.signature or "") + str(delta.get("signature", ""))
            return
        expected, field = DELTAS.get(str(kind), (None, ""))
        if expected != open_block.type:
            raise WireError(f"content block {self.index}: a {kind!r} delta does not belong "
                            f"in a {open_block.type} block")
        piece = delta.get(field)
        if not isinstance(piece, str):
            raise WireError(f"content block {self.index}: {kind} without a string {field!r}")
        if piece:
            self.add(piece)

    def add(self, piece: str) -> None:
        assert self.builder.open is not None
        self.builder.open.add(piece)
        self.builder.push_delta(piece)

    def block_stop(self, data: Data) -> None:
        self.open_block(data)
        self.index = None
        self.builder.close()  # a tool call's input is parsed strictly here, or refused

    def open_block(self, data: Data) -> Block:
        """The block an event is about, which must be the open one."""
        block = self.builder.open
        if block is None or data.get("index") != self.index:
            raise WireError(f"an event for content block {data.get('index')} "
                            f"while block {self.index} is open")
        return block

    def message_delta(self, data: Data) -> None:
        self.stop_reason = (data.get("delta") or {}).get("stop_reason") or self.stop_reason
        usage = usage_from(self.builder.reply.usage, data.get("usage") or {})
        self.builder.reply = self.builder.reply.model_copy(update={"usage": usage})

    def message_stop(self, data: Data) -> None:
        self.stopped = True

    def error(self, data: Data) -> None:
        error = data.get("error") or {}
        raise WireError(f"the provider sent an error: {error.get('type', 'error')}: "
                        f"{error.get('message') or json.dumps(data)}")

    def finish(self) -> None:
        """The stream is over: close a block left open and push the one terminal event."""
        self.builder.close()
        snapshot = self.builder.snapshot()
        self.builder.out.push(terminal_event(snapshot, self.stop_reason, self.stopped))
