"""The conversation as one text, so the summariser reads it instead of continuing it.

Sent as real messages, a conversation invites the model to answer its last question. Turned
into a transcript with `[User]:` / `[Assistant]:` labels inside one user message, it becomes a
document to summarise. Long tool results are cut to their first 2,000 characters: the
summary needs to know what a tool said, not every line of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi.ai.messages import json_text
from pi.ai import AssistantMessage, Message, TextContent, UserMessage
from pi.ai.content import ThinkingContent, ToolCall
from pi.coding_agent.session.tokens import js_length

TOOL_RESULT_MAX_CHARS = 2000


def js_json(value: Any) -> str:
    """`JSON.stringify(value)`: compact, non-ASCII kept, integral floats without `.0`."""
    return json_text(integral(value))


def integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral(item) for item in value]
    return value


def js_slice(text: str, units: int) -> str:
    """`text.slice(0, units)` in JavaScript: the first `units` UTF-16 code units."""
    data = text.encode("utf-16-le", "surrogatepass")[: units * 2]
    return data.decode("utf-16-le", "surrogatepass")


def truncate_for_summary(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    length = js_length(text)
    if length <= limit:
        return text
    return f"{js_slice(text, limit)}\n\n[... {length - limit} more characters truncated]"


def joined_text(content: str | Sequence[object]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def tool_call_text(call: ToolCall) -> str:
    arguments = ", ".join(f"{key}={js_json(value)}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def assistant_parts(message: AssistantMessage) -> list[str]:
    """Thinking, then text, then tool calls: each kind becomes one labelled part."""
    thinking = [b.thinking for b in message.content if isinstance(b, ThinkingContent)]
    texts = [b.text for b in message.content if isinstance(b, TextContent)]
    calls = [tool_call_text(b) for b in message.content if isinstance(b, ToolCall)]
    parts = []
    if thinking:
        parts.append("[Assistant thinking]: " + "\n".join(thinking))
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Sequence[Message]) -> str:
    """Pi's `serializeConversation`, byte for byte: labelled parts joined by blank lines."""
    parts: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            parts.extend(assistant_parts(message))
            continue
        text = joined_text(message.content)
        if text and isinstance(message, UserMessage):
            parts.append(f"[User]: {text}")
        elif text:
            parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)
