"""pi.ai: the bottom layer, like Pi's pi-ai: messages, reply streams and the model boundary."""

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import (AgentMessage, AppMessage, AssistantMessage, Cost, Message,
                            ProtocolError, SystemMessage, ToolResultMessage, Usage, UserMessage,
                            dump_message, parse_message)

# [from 02]
from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent, dump_event, parse_event
from pi.ai.stream import AssistantMessageEventStream, StreamEndedError, produce

# [end]
# [from 03]
from pi.ai.abort import AbortController, AbortSignal
from pi.ai.model import Context, Model, Providers, StreamFunction, StreamOptions
from pi.ai.messages import Tool
from pi.ai.providers.mock import MockProvider

# [end]
# [from 04]
from pi.ai.providers.http_exchange import RetryPolicy
from pi.ai.providers.openai_completions import OpenAICompletionsProvider
from pi.ai.redact import redact

# [end]
# [from 13]
from pi.ai.credentials import Credentials
from pi.ai.providers.anthropic_messages import AnthropicMessagesProvider
from pi.ai.registry import WithCredentials, builtin_models

# [end]
__all__ = [
    "AgentMessage", "AppMessage", "AssistantMessage", "Cost", "ImageContent", "Message",
    "ProtocolError", "SystemMessage", "TextContent", "ThinkingContent", "ToolCall",
    "ToolResultMessage", "Usage", "UserMessage", "dump_message", "parse_message",
    # [from 02]
    "AssistantMessageEvent", "AssistantMessageEventStream", "DoneEvent", "ErrorEvent",
    "StreamEndedError", "dump_event", "parse_event", "produce",
    # [end]
    # [from 03]
    "AbortController", "AbortSignal", "Context", "MockProvider", "Model", "Providers",
    "StreamFunction", "StreamOptions", "Tool",
    # [end]
    # [from 04]
    "OpenAICompletionsProvider", "RetryPolicy", "redact",
    # [end]
    # [from 13]
    "AnthropicMessagesProvider", "Credentials", "WithCredentials", "builtin_models",
    # [end]
]
