"""The context as the model reads it, converted and checked once per message.

A run's context only grows at its end, so converting the whole transcript before every
request would make turn 10,000 cost a thousand times turn 10 for nothing: each message is
converted when it first goes to the model, and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pi.ai import AgentMessage, Message
from pi.ai.model import checked_message


class ModelView:
    """What the model has been sent so far, grown by the messages new since the last request."""

    def __init__(self, convert: Callable[[Sequence[AgentMessage]], tuple[Message, ...]]) -> None:
        self.convert = convert
        self.sent: list[Message] = []
        self.converted = 0

    def reset(self) -> None:
        """The history was replaced (a compaction): convert it afresh next time."""
        self.sent, self.converted = [], 0

    def messages(self, context: Sequence[AgentMessage]) -> tuple[Message, ...]:
        """The whole context as the model reads it; only the new messages are converted."""
        fresh = self.convert(context[self.converted:])
        self.sent += [checked_message(message) for message in fresh]
        self.converted = len(context)
        return tuple(self.sent)
