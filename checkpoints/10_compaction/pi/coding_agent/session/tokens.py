"""Pi's token estimates: UTF-16 characters / 4 per message, and for a whole context the last
successful reply's reported usage plus estimates of the messages after it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.ai import (AssistantMessage, ImageContent, SystemMessage, TextContent, ThinkingContent,
                   ToolCall, ToolResultMessage, Usage, UserMessage)
from pi.ai.messages import json_text
from pi.coding_agent.messages import (AnyMessage, BashExecutionMessage, BranchSummaryMessage,
                                      CompactionSummaryMessage, CustomMessage)

IMAGE_CHARS = 4800  # characters Pi counts for one image (ESTIMATED_IMAGE_CHARS): 1,200 tokens


def js_length(text: str) -> int:
    """JavaScript's `text.length`: UTF-16 code units, not Python's code points."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def estimate_tokens(message: AnyMessage) -> int:
    """Pi's `estimateTokens`: ceil(characters / 4), the characters counted by the role's rule."""
    if isinstance(message, SystemMessage):  # Pi 1.6: its sections and its tools' JSON count too
        sections = [text for text in (message.sections or {}).values() if text]
        tools = "" if message.tools_added is None else json_text(
            [tool.model_dump() for tool in message.tools_added])  # as stored, nulls too
        chars = content_chars(message.content) + sum(map(js_length, sections)) + js_length(tools)
    elif isinstance(message, AssistantMessage):
        chars = sum(js_length(block_text(block)) for block in message.content)
    elif isinstance(message, BashExecutionMessage):
        chars = js_length(message.command) + js_length(message.output)
    elif isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        chars = js_length(message.summary)
    elif isinstance(message, UserMessage | ToolResultMessage | CustomMessage):
        chars = content_chars(message.content)
    else:
        chars = 0
    return -(-chars // 4)


def content_chars(content: str | Sequence[TextContent | ImageContent]) -> int:
    """A text's characters; for blocks, each text's and a fixed guess for each image."""
    if isinstance(content, str):
        return js_length(content)
    return sum(js_length(block.text) if isinstance(block, TextContent) else IMAGE_CHARS
               for block in content)


def block_text(block: TextContent | ThinkingContent | ToolCall) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ThinkingContent):
        return block.thinking
    return block.name + json_text(block.arguments)


def calculate_context_tokens(usage: Usage) -> int:
    """The context size a reply reported: totalTokens, or the sum of its parts if that is 0."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read + usage.cache_write)


ENDED_BADLY = ("aborted", "error")  # a reply that ended so measured nothing usable


@dataclass(frozen=True)
class ContextTokens:
    """Pi's `estimateContextTokens` result: tokens = usageTokens + trailingTokens."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def estimate_context_tokens(messages: Sequence[AnyMessage]) -> ContextTokens:
    """The usage the last reply that finished normally reported (it measured the context up
    to there; a usage of 0 measured nothing) plus estimates of every message after it;
    without such a reply, all estimated. That reply is looked for from the end, where it is,
    so a turn does not read the whole context."""
    for index in reversed(range(len(messages))):
        reply = messages[index]
        if (isinstance(reply, AssistantMessage) and reply.stop_reason not in ENDED_BADLY
                and (usage_tokens := calculate_context_tokens(reply.usage)) > 0):
            trailing = sum(estimate_tokens(message) for message in messages[index + 1:])
            return ContextTokens(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate_tokens(message) for message in messages)
    return ContextTokens(estimated, 0, estimated, None)
