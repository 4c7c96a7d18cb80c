"""The two queues a person uses to talk to a running agent.

Steering ("actually, use the other file") should reach the model as soon as it is safe: after
the tool calls of the current reply are done, before the next request. A follow-up ("then
write the docs") should wait until the agent would otherwise stop. Both keep the order in
which they were sent, and neither ever loses a message: an abort hands them back.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

from pi.ai import AgentMessage

DeliveryMode = Literal["one-at-a-time", "all"]


class MessageQueue:
    """FIFO of messages; `take` hands out one message or all of them, as the mode says."""

    def __init__(self, mode: DeliveryMode = "one-at-a-time") -> None:
        self.mode: DeliveryMode = mode
        self._messages: deque[AgentMessage] = deque()

    def put(self, message: AgentMessage) -> None:
        self._messages.append(message)

    def take(self) -> list[AgentMessage]:
        if not self._messages:
            return []
        if self.mode == "all":
            return self.drain()
        return [self._messages.popleft()]

    def put_back(self, messages: list[AgentMessage]) -> None:
        """Return undelivered messages to the front, keeping their order."""
        self._messages.extendleft(reversed(messages))

    def drain(self) -> list[AgentMessage]:
        taken = list(self._messages)
        self._messages.clear()
        return taken

    def __len__(self) -> int:
        return len(self._messages)
