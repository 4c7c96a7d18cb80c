"""The Agent's state, and how each loop event changes it.

`advance` is a pure function from (state, event) to the next state: easy to test, impossible
to half-apply. The state is frozen and holds tuples and frozensets, so a snapshot handed to a
listener stays exactly as it was when it was handed out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pi.agent.events import (
    AgentEvent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from pi.ai import AgentMessage, AssistantMessage


@dataclass(frozen=True)
class AgentState:
    messages: tuple[AgentMessage, ...] = ()
    streaming_message: AssistantMessage | None = None
    pending_tool_calls: frozenset[str] = frozenset()
    is_running: bool = False
    last_error: str | None = None


def advance(state: AgentState, event: AgentEvent) -> AgentState:
    """The state after `event`: transcript, streaming reply and running tools kept current."""
    if isinstance(event, MessageStart | MessageUpdate) and event.message.role == "assistant":
        assert isinstance(event.message, AssistantMessage)
        return replace(state, streaming_message=event.message)
    if isinstance(event, MessageEnd):
        failed = getattr(event.message, "error_message", None)
        messages = (*state.messages, event.message)
        return replace(state, messages=messages, streaming_message=None,
                       last_error=failed or state.last_error)
    if isinstance(event, ToolExecutionStart):
        return replace(state, pending_tool_calls=state.pending_tool_calls | {event.tool_call_id})
    if isinstance(event, ToolExecutionEnd):
        return replace(state, pending_tool_calls=state.pending_tool_calls - {event.tool_call_id})
    return state
