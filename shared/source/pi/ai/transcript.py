"""The system prompt and tools live in the transcript (Pi 1.6): system messages, replayed.

The first system message holds the prompt and tools; a later one appends text, patches
`sections` by name (None removes one) and adds or removes tools. Providers send the replay."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.ai.messages import (AssistantMessage, Message, SystemMessage, Tool, ToolResultMessage,
                            UserMessage)
from pi.ai.model import Context

Turn = UserMessage | AssistantMessage | ToolResultMessage  # what a request sends as messages


def initial_system_message(prompt: str | None, tools: Sequence[Tool]) -> SystemMessage | None:
    """The leading system message for a prompt and tools; None when both are empty."""
    if not prompt and not tools:
        return None
    return SystemMessage(content=prompt or "", tools_added=tuple(tools) or None, timestamp=0)


@dataclass(frozen=True)
class Replay:
    """What a transcript's system messages add up to, and the messages a request sends."""

    text: str  # every system message's text, in order, joined by blank lines
    sections: dict[str, str]  # the sections still alive, by name
    tools: tuple[Tool, ...]  # the tools declared after every removal and addition
    turns: list[Turn]  # the messages that are not system messages
    found: bool  # whether there was any system message at all

    @property
    def prompt(self) -> str | None:
        """The text, then the live sections, joined by blank lines; None with no system message."""
        if not self.found:
            return None
        return "\n\n".join(part for part in [self.text, *self.sections.values()] if part)


def replay(messages: Sequence[Message]) -> Replay:
    """One pass over the transcript: texts appended, sections patched by name (None removes
    one), tools removed then added by name (so re-declaring a tool replaces it)."""
    texts: list[str] = []
    sections: dict[str, str] = {}
    tools: dict[str, Tool] = {}
    turns: list[Turn] = []
    for message in messages:
        if not isinstance(message, SystemMessage):
            turns.append(message)
            continue
        content = message.content
        texts.append(content if isinstance(content, str) else "\n".join(b.text for b in content))
        for name, value in (message.sections or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for gone in message.tools_removed or ():
            tools.pop(gone.name, None)
        for tool in message.tools_added or ():
            tools[tool.name] = tool
    return Replay("\n\n".join(filter(None, texts)), sections, tuple(tools.values()), turns,
                  found=bool(texts))


def request_parts(context: Context) -> tuple[str | None, tuple[Tool, ...], list[Turn]]:
    """What a provider sends: the replayed prompt, the current tools and the other messages
    (`system_prompt`/`tools` fold in as a leading system message, as Pi's normalizeContext)."""
    first = initial_system_message(context.system_prompt, context.tools)
    replayed = replay([first, *context.messages] if first else context.messages)
    return replayed.prompt, replayed.tools, replayed.turns
