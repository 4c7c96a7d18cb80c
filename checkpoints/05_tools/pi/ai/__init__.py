"""pi.ai: the bottom layer, like Pi's pi-ai: messages, reply streams and the model boundary."""

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import (AgentMessage, AppMessage, AssistantMessage, Cost, Message,
                            ProtocolError, SystemMessage, ToolResultMessage, Usage, UserMessage,
                            dump_message, parse_message)

from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent, dump_event, parse_event
from pi.ai.stream import AssistantMessageEventStream, StreamEndedError, produce

from pi.ai.abort import AbortController, AbortSignal
from pi.ai.model import Context, Model, Providers, StreamFunction, StreamOptions
from pi.ai.messages import Tool
from pi.ai.providers.mock import MockProvider

from pi.ai.providers.http_exchange import RetryPolicy
from pi.ai.providers.openai_completions import OpenAICompletionsProvider
from pi.ai.redact import redact

__all__ = [
    "AgentMessage", "AppMessage", "AssistantMessage", "Cost", "ImageContent", "Message",
    "ProtocolError", "SystemMessage", "TextContent", "ThinkingContent", "ToolCall",
    "ToolResultMessage", "Usage", "UserMessage", "dump_message", "parse_message",
    "AssistantMessageEvent", "AssistantMessageEventStream", "DoneEvent", "ErrorEvent",
    "StreamEndedError", "dump_event", "parse_event", "produce",
    "AbortController", "AbortSignal", "Context", "MockProvider", "Model", "Providers",
    "StreamFunction", "StreamOptions", "Tool",
    "OpenAICompletionsProvider", "RetryPolicy", "redact",
]
