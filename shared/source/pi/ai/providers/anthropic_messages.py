"""Anthropic's Messages API: the Context as a `/v1/messages` body (system apart, tool results in
one user message, signed thinking replayed to its own model), the key in `x-api-key`, and the
named SSE events read through the step 04 `ReplyBuilder` until `message_stop`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.compat import compat_messages
from pi.ai.providers.http_exchange import HttpProvider, Json, sse_objects
from pi.ai.providers.openai_completions import text_part
from pi.ai.providers.openai_wire import Finished, ReplyBuilder, terminal_event
from pi.ai.providers.reply_blocks import Block, WireError
from pi.ai.stream import error_event
from pi.ai.transcript import Turn, request_parts

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"  # the API version this adapter speaks, sent with every request
IMAGE_ONLY_RESULT = "(see attached image)"
STOP_REASONS: dict[str, Finished] = {"end_turn": "stop", "max_tokens": "length",
                                     "tool_use": "toolUse"}
USAGE_FIELDS = {"input_tokens": "input", "output_tokens": "output",
                "cache_read_input_tokens": "cache_read",
                "cache_creation_input_tokens": "cache_write"}
EVENTS = {"message_start", "content_block_start", "content_block_delta", "content_block_stop",
          "message_delta", "message_stop", "error"}  # the events read, each by its method
DELTAS = {"text_delta": ("text", "text"), "thinking_delta": ("thinking", "thinking"),
          "input_json_delta": ("toolCall", "partial_json")}  # delta type -> block type, field


class AnthropicMessagesProvider(HttpProvider):
    """Speaks `anthropic-messages`: POST `/v1/messages`, read named SSE events."""

    path = "/v1/messages"

    def body(self, model: Model, context: Context, options: StreamOptions) -> Json:
        """The JSON body POSTed to `/v1/messages`, asking for a stream of events."""
        body: Json = {"model": model.id, "max_tokens": options.max_tokens or model.max_tokens}
        prompt, tools, turns = request_parts(context)
        if prompt:
            body["system"] = prompt
        body["messages"] = wire_messages(turns, model)
        if tools:
            body["tools"] = [{"name": tool.name, "description": tool.description,
                              "input_schema": tool.parameters} for tool in tools]
        if options.temperature is not None:
            body["temperature"] = options.temperature
        body["stream"] = True
        return body

    def headers(self, key: str | None) -> dict[str, str]:
        """The only place the API key goes: the `x-api-key` header."""
        headers = {"content-type": "application/json", "accept": "text/event-stream",
                   "anthropic-version": ANTHROPIC_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        """Feed each named event to a reader until `message_stop` or the end of the body."""
        reader = AnthropicReader(builder)
        async for name, data in sse_objects(response):
            reader.feed(name, data)
            if reader.stopped:
                break
        reader.finish()


def wire_messages(messages: Sequence[Turn], model: Model) -> list[Json]:
    """The messages in Messages API form; a run of tool results becomes ONE user message."""
    out: list[Json] = []
    results: list[Json] | None = None  # the tool_result blocks of the user message being filled
    for message in compat_messages(messages, model, own_thinking=True):
        if isinstance(message, ToolResultMessage):
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(wire_tool_result(message))
            continue
        results = None
        blocks = wire_user(message) if isinstance(message, UserMessage) else wire_assistant(message)
        if blocks:  # the API refuses a message without content
            out.append({"role": message.role, "content": blocks})
    return out


def wire_user(message: UserMessage) -> list[Json]:
    """Text and image blocks; empty text is left out (the API refuses it)."""
    if isinstance(message.content, str):
        return [text_part(message.content)] if message.content.strip() else []
    return [text_part(block.text) if isinstance(block, TextContent) else image_block(block)
            for block in message.content
            if not isinstance(block, TextContent) or block.text.strip()]


def wire_assistant(message: AssistantMessage) -> list[Json]:
    blocks: list[Json] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            blocks.append({"type": "tool_use", "id": wire_id(block.id), "name": block.name,
                           "input": block.arguments})
        elif isinstance(block, ThinkingContent):
            blocks += wire_thinking(block)
        elif block.text.strip():
            blocks.append(text_part(block.text))
    return blocks


def wire_thinking(block: ThinkingContent) -> list[Json]:
    """Signed thinking goes back as it came; unsigned thinking (cut before its signature)
    cannot be verified, so it goes back as plain text, as in Pi."""
    if block.redacted:
        signature = block.thinking_signature
        return [{"type": "redacted_thinking", "data": signature}] if signature else []
    if not block.thinking.strip():
        return []
    if block.thinking_signature:
        return [{"type": "thinking", "thinking": block.thinking,
                 "signature": block.thinking_signature}]
    return [text_part(block.thinking)]


def wire_tool_result(message: ToolResultMessage) -> Json:
    """Text only: one string. With images: blocks, with a short text if there is none."""
    texts = [block.text for block in message.content if isinstance(block, TextContent)]
    content: str | list[Json] = "\n".join(texts)
    if any(isinstance(block, ImageContent) for block in message.content):
        content = [text_part(block.text) if isinstance(block, TextContent)
                   else image_block(block) for block in message.content]
        if not texts:
            content.insert(0, text_part(IMAGE_ONLY_RESULT))
    return {"type": "tool_result", "tool_use_id": wire_id(message.tool_call_id),
            "content": content, "is_error": message.is_error}


def wire_id(call_id: str) -> str:
    """An id made to fit Anthropic's `[a-zA-Z0-9_-]{1,64}`, the same for a call and its result."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]


def image_block(image: ImageContent) -> Json:
    return {"type": "image",
            "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}


class AnthropicReader:
    """Feeds one reply's named events (EVENTS, each read by its method) into a ReplyBuilder."""

    def __init__(self, builder: ReplyBuilder) -> None:
        self.builder = builder
        self.index: int | None = None  # the wire index of the open block
        self.stop_reason: str | None = None
        self.stopped = False  # message_stop arrived: the reply is complete

    def feed(self, name: str, data: Json) -> None:
        """Take one event (its `type`, else its SSE name); `ping` and event types added later
        are ignored, as Anthropic asks of its clients."""
        kind = data.get("type")
        kind = kind if isinstance(kind, str) else name
        if kind in EVENTS:
            getattr(self, kind)(data)

    def message_start(self, data: Json) -> None:
        message = data.get("message") or {}
        update: Json = {"usage": usage_from(self.builder.reply.usage, message.get("usage") or {})}
        if isinstance(message.get("id"), str):
            update["response_id"] = message["id"]
        self.builder.reply = self.builder.reply.model_copy(update=update)

    def content_block_start(self, data: Json) -> None:
        block = data.get("content_block") or {}
        kind = block.get("type")
        if kind in ("text", "thinking"):
            started = Block(kind)
        elif kind == "redacted_thinking":
            started = Block("thinking", signature=str(block.get("data", "")), redacted=True)
        elif kind == "tool_use":
            started = Block("toolCall", id=str(block.get("id", "")),
                            name=str(block.get("name", "")))
        else:
            raise WireError(f"content block {data.get('index')} is of a type this adapter "
                            f"cannot read: {kind!r}")
        self.builder.begin(started)
        self.index = data.get("index")
        if kind == "text" and block.get("text"):
            self.builder.add_piece(str(block["text"]))

    def content_block_delta(self, data: Json) -> None:
        """A piece of text, thinking or tool input; a `signature_delta` only completes the
        thinking block."""
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
            self.builder.add_piece(piece)

    def content_block_stop(self, data: Json) -> None:
        self.open_block(data)
        self.index = None
        self.builder.close()  # a tool call's input is parsed strictly here, or refused

    def open_block(self, data: Json) -> Block:
        """The block an event is about, which must be the open one."""
        block = self.builder.open
        if block is None or data.get("index") != self.index:
            raise WireError(f"an event for content block {data.get('index')} "
                            f"while block {self.index} is open")
        return block

    def message_delta(self, data: Json) -> None:
        self.stop_reason = (data.get("delta") or {}).get("stop_reason") or self.stop_reason
        usage = usage_from(self.builder.reply.usage, data.get("usage") or {})
        self.builder.reply = self.builder.reply.model_copy(update={"usage": usage})

    def message_stop(self, data: Json) -> None:
        self.stopped = True

    def error(self, data: Json) -> None:
        error = data.get("error") or {}
        raise WireError(f"the provider sent an error: {error.get('type', 'error')}: "
                        f"{error.get('message') or json.dumps(data)}")

    def finish(self) -> None:
        """The stream is over: close a block left open and push the one terminal event. A stop
        reason we do not know (`refusal`, `pause_turn`) is an error naming it, never a guess
        that would present an unfinished answer as finished."""
        self.builder.close()
        snapshot = self.builder.snapshot()
        if self.stop_reason in STOP_REASONS and not self.stopped:
            event = error_event(snapshot, "stream ended before message_stop", "error")
        else:
            event = terminal_event(snapshot, self.stop_reason, STOP_REASONS, "stop reason")
        self.builder.out.push(event)


def usage_from(usage: Usage, data: Mapping[str, Any]) -> Usage:
    """`usage` with every count `data` gives (input in `message_start`, output in
    `message_delta`); cached tokens are already apart, and the total is the sum, as in Pi."""
    counts = {name: data[wire] if isinstance(data.get(wire), int) else getattr(usage, name)
              for wire, name in USAGE_FIELDS.items()}
    return usage.model_copy(update={**counts, "total_tokens": sum(counts.values())})
