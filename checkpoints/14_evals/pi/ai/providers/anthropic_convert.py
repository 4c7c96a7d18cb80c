"""The outbound half of the Anthropic adapter: a Context as a Messages request body.

Where Anthropic's Messages API differs from Chat Completions: the system prompt is the
top-level `system` field, not a message; content is a list of typed blocks (`text`, `image`
with a base64 `source`, `tool_use` with the arguments as a JSON *object* in `input`,
`thinking` with its `signature`); a tool result is a `tool_result` block inside a *user*
message, so the results answering one reply travel together; `max_tokens` is required.
`compat_messages` (step 04) decides what the model can take, except that a model's own
signed thinking goes back to it: Anthropic can take it back, and wants it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from pi.ai.model import Context, Model, StreamOptions, Tool
from pi.ai.providers.compat import compat_messages, replayable

Json = dict[str, Any]
IMAGE_ONLY_RESULT = "(see attached image)"
FAILED = ("error", "aborted")


def messages_body(model: Model, context: Context, options: StreamOptions) -> Json:
    """The JSON body POSTed to `/v1/messages`, asking for a stream of events."""
    body: Json = {"model": model.id, "max_tokens": options.max_tokens or model.max_tokens}
    if context.system_prompt:
        body["system"] = context.system_prompt
    body["messages"] = wire_messages(context.messages, model)
    if context.tools:
        body["tools"] = [wire_tool(tool) for tool in context.tools]
    if options.temperature is not None:
        body["temperature"] = options.temperature
    body["stream"] = True
    return body


def wire_messages(messages: Sequence[Message], model: Model) -> list[Json]:
    """The messages in Messages API form; a run of tool results becomes ONE user message."""
    out: list[Json] = []
    results: list[Json] | None = None  # the tool_result blocks of the user message being filled
    for message in with_own_thinking(messages, model):
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


def with_own_thinking(messages: Sequence[Message], model: Model) -> list[Message]:
    """`compat_messages`, except that a reply `model` wrote itself keeps its thinking.

    compat drops a model's own thinking (Chat Completions cannot take it back). Anthropic
    can: a signed thinking block lets the model continue its own reasoning, and after a tool
    call with extended thinking the API requires it. compat keeps replies in order, exactly
    those that are not failed and that `replayable` keeps, so each kept reply pairs with its
    original.
    """
    originals = iter([m for m in messages if isinstance(m, AssistantMessage)
                      and m.stop_reason not in FAILED and replayable(m, model) is not None])
    out: list[Message] = []
    for message in compat_messages(messages, model):
        if isinstance(message, AssistantMessage):
            original = next(originals)
            if (original.provider, original.api, original.model) == (
                    model.provider, model.api, model.id):
                message = original
        out.append(message)
    return out


def wire_user(message: UserMessage) -> list[Json]:
    """Text and image blocks; empty text is left out (the API refuses it)."""
    if isinstance(message.content, str):
        return [text_block(message.content)] if message.content.strip() else []
    return [text_block(block.text) if isinstance(block, TextContent) else image_block(block)
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
            blocks.append(text_block(block.text))
    return blocks


def wire_thinking(block: ThinkingContent) -> list[Json]:
    """Signed thinking goes back as it came; unsigned thinking (a stream cut before the
    signature) cannot be verified, so it goes back as plain text, as in Pi.
    """
    if block.redacted:
        signature = block.thinking_signature
        return [{"type": "redacted_thinking", "data": signature}] if signature else []
    if not block.thinking.strip():
        return []
    if block.thinking_signature:
        return [{"type": "thinking", "thinking": block.thinking,
                 "signature": block.thinking_signature}]
    return [text_block(block.thinking)]


def wire_tool_result(message: ToolResultMessage) -> Json:
    """Text only: one string. With images: blocks, with a short text if there is none."""
    texts = [block.text for block in message.content if isinstance(block, TextContent)]
    content: str | list[Json] = "\n".join(texts)
    if any(isinstance(block, ImageContent) for block in message.content):
        content = [text_block(block.text) if isinstance(block, TextContent)
                   else image_block(block) for block in message.content]
        if not texts:
            content.insert(0, text_block(IMAGE_ONLY_RESULT))
    return {"type": "tool_result", "tool_use_id": wire_id(message.tool_call_id),
            "content": content, "is_error": message.is_error}


def wire_tool(tool: Tool) -> Json:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def wire_id(call_id: str) -> str:
    """Ids from other providers made to fit Anthropic's `[a-zA-Z0-9_-]{1,64}`, the same way
    for a call and its result."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:64]


def text_block(text: str) -> Json:
    return {"type": "text", "text": text}


def image_block(image: ImageContent) -> Json:
    return {"type": "image",
            "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}
