"""The system prompt and tools live in the transcript (Pi 1.6): system messages, replayed.

The first system message holds the prompt and tools; a later one appends text, patches
`sections` by name (None removes one) and adds or removes tools. Providers send the replay.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi.ai.messages import AssistantMessage, Message, SystemMessage, Tool, ToolResultMessage
from pi.ai.messages import UserMessage
from pi.ai.model import Context

Turn = UserMessage | AssistantMessage | ToolResultMessage  # what a request sends as messages


def initial_system_message(prompt: str | None, tools: Sequence[Tool]) -> SystemMessage | None:
    """The leading system message for a prompt and tools; None when both are empty."""
    if not prompt and not tools:
        return None
    return SystemMessage(content=prompt or "", tools_added=tuple(tools) or None, timestamp=0)


def current_tools(messages: Sequence[Message]) -> tuple[Tool, ...]:
    """The tools declared after every system message's removals and additions, in order."""
    tools: dict[str, Tool] = {}
    for message in messages:
        if isinstance(message, SystemMessage):
            for gone in message.tools_removed or ():
                tools.pop(gone.name, None)
            for tool in message.tools_added or ():
                tools[tool.name] = tool
    return tuple(tools.values())


def current_prompt(messages: Sequence[Message]) -> str | None:
    """The prompt after replaying every system message: their texts, then the live sections,
    joined by blank lines; None when there is no system message."""
    texts: list[str] = []
    sections: dict[str, str] = {}
    for message in messages:
        if isinstance(message, SystemMessage):
            texts.append(text_of(message))
            for name, value in (message.sections or {}).items():
                if value is None:
                    sections.pop(name, None)
                else:
                    sections[name] = value
    if not texts:
        return None
    return "\n\n".join(part for part in ["\n\n".join(filter(None, texts)), *sections.values()]
                       if part)


def text_of(message: SystemMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(block.text for block in message.content)


def request_parts(context: Context) -> tuple[str | None, tuple[Tool, ...], list[Turn]]:
    """What a provider sends: the replayed prompt, the current tools and the other messages
    (`system_prompt`/`tools` fold in as a leading system message, as Pi's normalizeContext)."""
    first = initial_system_message(context.system_prompt, context.tools)
    messages = [first, *context.messages] if first else list(context.messages)
    turns = [m for m in messages if not isinstance(m, SystemMessage)]
    return current_prompt(messages), current_tools(messages), turns
