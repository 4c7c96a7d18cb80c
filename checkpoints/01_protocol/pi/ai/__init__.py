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
]
