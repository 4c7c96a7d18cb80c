"""The MockModel (request dict in, event dicts out) plugged in at the model boundary; every
event it sends is validated, so a malformed one ends the reply as an error naming the field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from pi.ai.events import parse_event
from pi.ai.messages import Message, dump_message
from pi.ai.model import Context, Model, StreamOptions, empty_reply, request_body
from pi.ai.stream import AssistantMessageEventStream, produce


class EventSource(Protocol):
    """What the adapter needs of a MockModel: request dict in, event dicts out."""

    def stream(
        self, request: dict[str, Any], signal: object | None = None
    ) -> AsyncIterator[dict[str, Any]]: ...


class MockProvider:
    """An agent's next request repeats every message of its last one, so the adapter turns
    each message into JSON once: it keeps the dicts of the messages it sent and dumps only the
    new ones (a context that does not begin with the last one is dumped afresh). The list of
    dicts grows in place; the MockModel copies a request's messages when it arrives."""

    def __init__(self, source: EventSource) -> None:
        self.source = source
        self.sent: tuple[Message, ...] = ()
        self.dumped: list[dict[str, Any]] = []

    def request(self, model: Model, context: Context) -> dict[str, Any]:
        known = len(self.sent)
        if context.messages[:known] != self.sent:
            known, self.dumped = 0, []
        self.dumped += [dump_message(message) for message in context.messages[known:]]
        self.sent = context.messages
        body = request_body(model, context.model_copy(update={"messages": ()}))
        body["messages"] = self.dumped
        return body

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        request = self.request(model, context)

        async def pump(out: AssistantMessageEventStream) -> None:
            async for data in self.source.stream(request, options.signal):
                out.push(parse_event(data, where=f"{model.provider} event"))

        return produce(pump, empty_reply(model, options))
