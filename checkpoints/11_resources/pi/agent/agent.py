"""The stateful Agent: a transcript, a status, and one run at a time.

It keeps what lives between runs, changes it only from the loop's events, hands out snapshots."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pi.agent.events import (AgentEvent, MessageEnd, MessageStart, MessageUpdate, ToolExecutionEnd,
                             ToolExecutionStart)
from pi.agent.loop import LoopConfig, LoopResult, run_loop
from pi.ai import AbortController, AgentMessage, AssistantMessage, UserMessage

DeliveryMode = Literal["one-at-a-time", "all"]


class MessageQueue(deque[AgentMessage]):
    """FIFO of messages; `take` hands out one or all, as the mode says. Steering arrives after
the current tool calls, follow-ups when the run would stop; an abort hands them back."""

    mode: DeliveryMode = "one-at-a-time"  # set per queue; "all" hands out everything at once

    def take(self) -> list[AgentMessage]:
        """Removed and returned: the oldest ("one-at-a-time") or all in order; [] if empty."""
        if not self:
            return []
        if self.mode == "all":
            return self.drain()
        return [self.popleft()]

    def drain(self) -> list[AgentMessage]:
        taken = list(self)
        self.clear()
        return taken


@dataclass(frozen=True)
class AgentState:
    messages: tuple[AgentMessage, ...] = ()
    streaming_message: AssistantMessage | None = None
    pending_tool_calls: frozenset[str] = frozenset()
    is_running: bool = False
    last_error: str | None = None


def advance(state: AgentState, event: AgentEvent) -> AgentState:
    """The state after `event` (a pure function): transcript, streaming reply and running
    tools kept current."""
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


Listener = Callable[[AgentEvent, AgentState], None]


class AgentBusyError(RuntimeError):
    """A prompt arrived while a run was going; steer or follow up instead."""


@dataclass(frozen=True)
class ListenerFailure:
    event_type: str
    error: str


class Agent:
    def __init__(self, config: LoopConfig, messages: Sequence[AgentMessage] = ()) -> None:
        self.steering, self.follow_ups = MessageQueue(), MessageQueue()
        self.config = replace(config, get_steering=self.steering.take,
                              get_follow_ups=self.follow_ups.take)
        self._state = AgentState(messages=tuple(messages))
        self._listeners: list[Listener] = []
        self._controller: AbortController | None = None
        self.listener_failures: list[ListenerFailure] = []

    @property
    def state(self) -> AgentState:
        """A frozen snapshot: safe to keep, impossible to change."""
        return self._state

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event, state)` after every event; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    async def prompt(self, *messages: str | AgentMessage) -> LoopResult:
        """Run the agent on new messages (usually one); refused while another run is going."""
        return await self._run([self.as_message(message) for message in messages])

    async def resume(self) -> LoopResult:
        """Run again on the transcript as it is, with no new message: a retry after a
        transient failure, or the next turn after a compaction made room."""
        return await self._run([])

    def replace_messages(self, messages: Sequence[AgentMessage]) -> None:
        """Swap the transcript for another view of the same history (after a compaction)."""
        if self._state.is_running:
            raise AgentBusyError("the transcript cannot be replaced during a run")
        self._state = replace(self._state, messages=tuple(messages))

    async def _run(self, prompts: list[AgentMessage]) -> LoopResult:
        if self._state.is_running:
            raise AgentBusyError("the agent is running: use steer() or follow_up() instead")
        self._controller = AbortController()
        self._state = replace(self._state, is_running=True, last_error=None)
        try:
            result = await run_loop(prompts, self._state.messages,
                                    self.config, self._publish, self._controller.signal)
        finally:
            self._state = replace(self._state, is_running=False, streaming_message=None,
                                  pending_tool_calls=frozenset())
            self._controller = None
        if result.error:
            self._state = replace(self._state, last_error=result.error)
        self.steering.extendleft(reversed(result.unsent))  # undelivered: to the front, in order
        return result

    def steer(self, message: str | AgentMessage) -> None:
        self.steering.append(self.as_message(message))

    def follow_up(self, message: str | AgentMessage) -> None:
        self.follow_ups.append(self.as_message(message))

    def abort(self) -> list[AgentMessage]:
        """Stop the run if one is going; every queued message comes back, steering first."""
        if self._controller is not None:
            self._controller.abort("aborted by the user")
        return self.steering.drain() + self.follow_ups.drain()

    def as_message(self, message: str | AgentMessage) -> AgentMessage:
        if isinstance(message, str):
            return UserMessage(content=message, timestamp=self.config.options.clock())
        return message

    def _publish(self, event: AgentEvent) -> None:
        self._state = advance(self._state, event)
        for listener in list(self._listeners):
            try:
                listener(event, self._state)
            except Exception as error:  # one broken listener must not silence the others
                self.listener_failures.append(ListenerFailure(event.type, repr(error)))
