"""What the agent loop reports while it runs, in Pi's AgentEvent shapes, as frozen values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pi.agent.tools import ToolResult
from pi.ai import AgentMessage, AssistantMessage, AssistantMessageEvent, ToolResultMessage


@dataclass(frozen=True, kw_only=True)
class AgentStart:
    type: Literal["agent_start"] = "agent_start"


@dataclass(frozen=True, kw_only=True)
class AgentEnd:
    """The run is over; `messages` are all the messages it added, in order."""

    type: Literal["agent_end"] = "agent_end"
    messages: tuple[AgentMessage, ...]


@dataclass(frozen=True, kw_only=True)
class TurnStart:
    type: Literal["turn_start"] = "turn_start"


@dataclass(frozen=True, kw_only=True)
class TurnEnd:
    """One model reply and the results of its tool calls, in the model's call order."""

    type: Literal["turn_end"] = "turn_end"
    message: AssistantMessage
    tool_results: tuple[ToolResultMessage, ...]


@dataclass(frozen=True, kw_only=True)
class MessageStart:
    type: Literal["message_start"] = "message_start"
    message: AgentMessage


@dataclass(frozen=True, kw_only=True)
class MessageUpdate:
    """A streamed reply grew: the partial message so far and the event that grew it."""

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage
    event: AssistantMessageEvent


@dataclass(frozen=True, kw_only=True)
class MessageEnd:
    type: Literal["message_end"] = "message_end"
    message: AgentMessage


@dataclass(frozen=True, kw_only=True)
class ToolExecutionStart:
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolExecutionUpdate:
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: ToolResult


@dataclass(frozen=True, kw_only=True)
class ToolExecutionEnd:
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResultMessage
    is_error: bool


AgentEvent = (AgentStart | AgentEnd | TurnStart | TurnEnd | MessageStart | MessageUpdate
              | MessageEnd | ToolExecutionStart | ToolExecutionUpdate | ToolExecutionEnd)
