"""The MockModel (request dict in, event dicts out) plugged in at the model boundary; every
event it sends is validated, so a malformed one ends the reply as an error naming the field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from pi.ai.events import parse_event
from pi.ai.messages import dump_message
from pi.ai.model import Context, Model, StreamOptions, empty_reply, request_body
from pi.ai.stream import AssistantMessageEventStream, produce
from pi.ai.transcript import Turn, request_parts


class EventSource(Protocol):
    """What the adapter needs of a MockModel: request dict in, event dicts out."""

    def stream(self, request: dict[str, Any],
               signal: object | None = None) -> AsyncIterator[dict[str, Any]]: ...


class MockProvider:
    """An agent's next request repeats every message of its last one, so the adapter turns
    each message into JSON once: it keeps the dicts of the messages it sent and dumps only the
    new ones (a context that does not begin with the last one is dumped afresh). The list of
    dicts grows in place; the MockModel copies a request's messages when it arrives."""

    def __init__(self, source: EventSource) -> None:
        self.source = source
        self.sent: tuple[Turn, ...] = ()
        self.dumped: list[dict[str, Any]] = []

    def request(self, model: Model, context: Context) -> dict[str, Any]:
        prompt, tools, turns = request_parts(context)
        known = len(self.sent)
        if tuple(turns[:known]) != self.sent:
            known, self.dumped = 0, []
        self.dumped += [dump_message(message) for message in turns[known:]]
        self.sent = tuple(turns)
        body = request_body(model, Context(system_prompt=prompt, tools=tools))
        body["messages"] = self.dumped
        return body

    def stream(self, model: Model, context: Context,
               options: StreamOptions) -> AssistantMessageEventStream:
        request = self.request(model, context)

        async def pump(out: AssistantMessageEventStream) -> None:
            async for data in self.source.stream(request, options.signal):
                out.push(parse_event(data, where=f"{model.provider} event"))

        return produce(pump, empty_reply(model, options))
