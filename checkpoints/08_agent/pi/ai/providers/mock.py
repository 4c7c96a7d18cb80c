"""The MockModel (request dict in, event dicts out) plugged in at the model boundary; every
event it sends is validated, so a malformed one ends the reply as an error naming the field."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from pi.ai.events import parse_event
from pi.ai.model import Context, Model, StreamOptions, empty_reply, request_body
from pi.ai.stream import AssistantMessageEventStream, produce


class EventSource(Protocol):
    """What the adapter needs of a MockModel: request dict in, event dicts out."""

    def stream(
        self, request: dict[str, Any], signal: object | None = None
    ) -> AsyncIterator[dict[str, Any]]: ...


class MockProvider:
    def __init__(self, source: EventSource) -> None:
        self.source = source

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        request = request_body(model, context)

        async def pump(out: AssistantMessageEventStream) -> None:
            async for data in self.source.stream(request, options.signal):
                out.push(parse_event(data, where=f"{model.provider} event"))

        return produce(pump, empty_reply(model, options))
