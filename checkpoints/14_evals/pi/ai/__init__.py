"""pi.ai: the bottom layer, like Pi's pi-ai: messages, reply streams and the model boundary.

Nothing here knows about tools being run, agents or sessions; it only describes what is sent
to a model and what comes back.
"""

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import (
    AgentMessage,
    AppMessage,
    AssistantMessage,
    Cost,
    Message,
    ProtocolError,
    StopReason,
    ToolResultMessage,
    Usage,
    UserMessage,
    dump_message,
    parse_message,
)

from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent, dump_event, parse_event
from pi.ai.stream import AssistantMessageEventStream, StreamEndedError, produce

from pi.ai.abort import AbortController, AbortSignal
from pi.ai.boundary import Provider, Providers, StreamFunction
from pi.ai.model import Context, Model, StreamOptions, Tool, request_body
from pi.ai.providers.mock import MockProvider

from pi.ai.partial_json import parse_partial_json
from pi.ai.providers.compat import compat_messages
from pi.ai.providers.openai_completions import OpenAICompletionsProvider
from pi.ai.redact import redact
from pi.ai.retry import RetryPolicy
from pi.ai.wire import decode_sse_bytes

from pi.ai.credentials import Credential, CredentialError, Credentials
from pi.ai.models_catalog import ModelRefError, builtin_models, find_model, parse_model_ref
from pi.ai.providers.anthropic_messages import AnthropicMessagesProvider
from pi.ai.registry import WithCredentials, builtin_providers

__all__ = [
    "AgentMessage",
    "AppMessage",
    "AssistantMessage",
    "Cost",
    "ImageContent",
    "Message",
    "ProtocolError",
    "StopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "dump_message",
    "parse_message",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "DoneEvent",
    "ErrorEvent",
    "StreamEndedError",
    "dump_event",
    "parse_event",
    "produce",
    "AbortController",
    "AbortSignal",
    "Context",
    "MockProvider",
    "Model",
    "Provider",
    "Providers",
    "StreamFunction",
    "StreamOptions",
    "Tool",
    "request_body",
    "OpenAICompletionsProvider",
    "RetryPolicy",
    "compat_messages",
    "decode_sse_bytes",
    "parse_partial_json",
    "redact",
    "AnthropicMessagesProvider",
    "Credential",
    "CredentialError",
    "Credentials",
    "ModelRefError",
    "WithCredentials",
    "builtin_models",
    "builtin_providers",
    "find_model",
    "parse_model_ref",
]
