"""How big a context is, in Pi's estimated tokens.

Counting real tokens needs each model's tokenizer. Pi estimates instead: a message's
characters divided by four, rounded up, counting characters the way JavaScript does (UTF-16
code units, so an emoji counts 2). Which characters count depends on the role; images are
guessed at 4,800 characters where a tool or extension sent them and 0 in a user message.
For the whole context, the last successful reply's reported usage is better than any guess:
the estimate takes it and adds only the messages after it.

Step 10 (compaction) imports these functions from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from pi.ai import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.ai.messages import COMPACT_JSON
from pi.coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CodingMessage,
    CompactionSummaryMessage,
    CustomMessage,
)

IMAGE_CHARS = 4800  # Pi: "estimate images as 4000 chars, or 1200 tokens" (it adds 4800)


def js_length(text: str) -> int:
    """JavaScript's `text.length`: UTF-16 code units, not Python's code points."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def estimate_tokens(message: AgentMessage | CodingMessage) -> int:
    """Pi's `estimateTokens`: ceil(characters / 4) with the role's rule for characters."""
    return -(-message_chars(message) // 4)


def message_chars(message: AgentMessage | CodingMessage) -> int:
    if isinstance(message, AssistantMessage):
        return sum(block_chars(block) for block in message.content)
    if isinstance(message, ToolResultMessage | CustomMessage):
        return content_chars(message.content, image_chars=IMAGE_CHARS)
    if isinstance(message, UserMessage):
        return content_chars(message.content, image_chars=0)
    if isinstance(message, BashExecutionMessage):
        return js_length(message.command) + js_length(message.output)
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return js_length(message.summary)
    return 0


def content_chars(content: str | tuple[TextContent | ImageContent, ...], image_chars: int) -> int:
    if isinstance(content, str):
        return js_length(content)
    return sum(js_length(block.text) if isinstance(block, TextContent) else image_chars
               for block in content)


def block_chars(block: TextContent | ThinkingContent | ToolCall) -> int:
    if block.type == "text":
        return js_length(block.text)
    if block.type == "thinking":
        return js_length(block.thinking)
    return js_length(block.name) + js_length(COMPACT_JSON.encode(block.arguments))


def calculate_context_tokens(usage: Usage) -> int:
    """The context size a reply reported: totalTokens, or the sum of its parts if that is 0."""
    return usage.total_tokens or (usage.input + usage.output + usage.cache_read
                                  + usage.cache_write)


@dataclass(frozen=True)
class ContextTokens:
    """Pi's `estimateContextTokens` result: tokens = usageTokens + trailingTokens."""

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None


def reports_usage(message: AgentMessage | CodingMessage) -> TypeGuard[AssistantMessage]:
    """A reply that finished normally: its usage measured the context up to there."""
    return isinstance(message, AssistantMessage) and message.stop_reason not in ("aborted",
                                                                                 "error")


def last_usage_index(messages: list[AgentMessage | CodingMessage]) -> int | None:
    """The index of the last message that `reports_usage`, or None."""
    return next((i for i in reversed(range(len(messages))) if reports_usage(messages[i])), None)


def estimate_context_tokens(messages: list[AgentMessage | CodingMessage]) -> ContextTokens:
    """The last usable reported usage plus estimates of every message after it."""
    index = last_usage_index(messages)
    if index is None:
        estimated = sum(estimate_tokens(message) for message in messages)
        return ContextTokens(estimated, 0, estimated, None)
    reply = messages[index]
    assert isinstance(reply, AssistantMessage)
    usage_tokens = calculate_context_tokens(reply.usage)
    trailing = sum(estimate_tokens(message) for message in messages[index + 1:])
    return ContextTokens(usage_tokens + trailing, usage_tokens, trailing, index)

