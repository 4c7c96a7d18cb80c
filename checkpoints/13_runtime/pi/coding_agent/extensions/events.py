"""What extension handlers receive, and what they may answer.

Each lifecycle event has a name an extension subscribes to with `api.on(name, handler)`. The
loop's own events (agent_start, turn_end, ...) are handed over as they are; the events that
let an extension change something have their own small types here, and so do the answers.
A handler returns None to change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pi.ai import AgentMessage, ToolResultMessage

EventName = Literal[
    "session_start",
    "input",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "tool_call",
    "tool_result",
]
EVENT_NAMES: tuple[str, ...] = get_args(EventName)
# Events of the loop itself, passed to handlers as the loop emits them (pi.agent.events).
LOOP_EVENTS = ("agent_start", "agent_end", "turn_start", "turn_end")


@dataclass(frozen=True)
class SessionStartEvent:
    """The session is ready; nothing has been asked yet."""

    cwd: str


@dataclass(frozen=True)
class InputEvent:
    """What the user typed, before anything else looks at it."""

    text: str


@dataclass(frozen=True)
class InputChange:
    """Answer to `input`: go on with this text instead (handlers chain)."""

    text: str


@dataclass(frozen=True)
class InputHandled:
    """Answer to `input`: the extension dealt with it; the model is not asked."""


@dataclass(frozen=True)
class BeforeAgentStartEvent:
    prompt: str
    system_prompt: str | None


@dataclass(frozen=True)
class AgentStartChange:
    """Answer to `before_agent_start`: a new system prompt, messages to add after the prompt."""

    system_prompt: str | None = None
    messages: tuple[AgentMessage, ...] = ()


@dataclass(frozen=True)
class ToolCallEvent:
    """A valid call about to run. `input` is read-only: return an ArgumentChange to change it."""

    tool_call_id: str
    tool_name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultEvent:
    """A call's result before the model sees it; return a replacement ToolResultMessage."""

    tool_call_id: str
    tool_name: str
    input: Mapping[str, Any]
    result: ToolResultMessage
