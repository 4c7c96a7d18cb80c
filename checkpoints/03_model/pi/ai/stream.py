"""A stream of reply events that always ends, exactly once, with a message: a producer that
crashes or stops early ends it with an `error` event. Errors are messages, never exceptions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Literal

from pi.ai.events import AssistantMessageEvent, DoneEvent, ErrorEvent, TerminalEvent, event_message
from pi.ai.messages import AssistantMessage

ErrorReason = Literal["error", "aborted"]


class StreamEndedError(RuntimeError):
    """A producer pushed an event after the terminal one: a bug in the producer."""


class AssistantMessageEventStream:
    """The events of one reply, in order, for one consumer; `result()` for the final message."""

    def __init__(self, partial: AssistantMessage) -> None:
        self.partial = partial
        self.ended = False
        self._queue: asyncio.Queue[AssistantMessageEvent] = asyncio.Queue()
        self._final: asyncio.Future[AssistantMessage] = (
            asyncio.get_running_loop().create_future()
        )
        self.producer_task: asyncio.Task[None] | None = None

    def push(self, event: AssistantMessageEvent) -> None:
        """Add the next event; a terminal event ends the stream and settles `result()`, and a
        push after it raises StreamEndedError."""
        if self.ended:
            raise StreamEndedError(f"event {event.type!r} pushed after the stream ended")
        self.partial = event_message(event)
        self._queue.put_nowait(event)
        if isinstance(event, DoneEvent | ErrorEvent):
            self.ended = True
            self._final.set_result(self.partial)

    def fail(self, text: str, reason: ErrorReason = "error") -> None:
        """End the stream with an error event built from the partial message so far."""
        if not self.ended:
            self.push(error_event(self.partial, text, reason))

    async def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        while True:
            event = await self._queue.get()
            yield event
            if isinstance(event, DoneEvent | ErrorEvent):
                return

    async def result(self) -> AssistantMessage:
        """The final message: the `done` message, or the `error` message. Never raises."""
        return await asyncio.shield(self._final)


def error_event(partial: AssistantMessage, text: str, reason: ErrorReason) -> TerminalEvent:
    """A terminal error event keeping the partial content, with the reason and the text."""
    failed = partial.model_copy(update={"stop_reason": reason, "error_message": text})
    return ErrorEvent(reason=reason, error=failed)


Producer = Callable[[AssistantMessageEventStream], Awaitable[None]]


def produce(producer: Producer, partial: AssistantMessage) -> AssistantMessageEventStream:
    """Start `producer` pushing into a new stream (`partial`: the reply so far) and
    guarantee the stream ends. Must be called with an event loop running."""
    stream = AssistantMessageEventStream(partial)

    async def guarded() -> None:
        try:
            await producer(stream)
        except asyncio.CancelledError:  # cancelled from outside: still end, then let it go
            stream.fail("the reply was cancelled", "aborted")
            raise
        except Exception as error:  # a failed producer becomes an error message
            stream.fail(f"{type(error).__name__}: {error}")
            return
        stream.fail("the stream ended without a done or error event")

    stream.producer_task = asyncio.get_running_loop().create_task(guarded())
    return stream
