"""The MockModel plugged in at the model boundary.

The MockModel (in `mock_model/`, outside every checkpoint) knows nothing of this package: it
takes a request dict and yields event dicts. This adapter is the boundary between the two, so
it validates every event it receives; a malformed one ends the reply as an error message
naming the bad field, exactly as a broken real provider would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from pi.ai.events import parse_event
from pi.ai.messages import Message, dump_message
from pi.ai.model import Context, Model, StreamOptions, Tool, empty_reply, request_body
from pi.ai.stream import AssistantMessageEventStream, produce


class RequestBodies:
    """`request_body`, dumping each message once: an agent's next request repeats all the
    messages of the last one, so only the messages after those are turned into JSON.

    The dumped dicts are shared by successive requests and never changed; the list holding
    them grows by the new ones (the MockModel copies what it keeps when a request arrives).
    A context that does not begin with the last one is dumped afresh, into a new list.
    """

    def __init__(self) -> None:
        self.messages: tuple[Message, ...] = ()
        self.dumped: list[dict[str, Any]] = []
        self.tools: tuple[Tool, ...] = ()  # the loop sends the same tuple every turn
        self.tools_dumped: list[dict[str, Any]] = []

    def body(self, model: Model, context: Context) -> dict[str, Any]:
        known = len(self.messages)
        if context.messages[:known] != self.messages:
            known, self.dumped = 0, []
        self.dumped += [dump_message(m) for m in context.messages[known:]]
        self.messages = context.messages
        if context.tools is not self.tools:
            self.tools = context.tools
            self.tools_dumped = [tool.model_dump(by_alias=True) for tool in context.tools]
        body = request_body(model, context.model_copy(update={"messages": (), "tools": ()}))
        body["messages"] = self.dumped
        if context.tools:
            body["tools"] = self.tools_dumped
        return body


class EventSource(Protocol):
    """What the adapter needs of a MockModel: request dict in, event dicts out."""

    def stream(
        self, request: dict[str, Any], signal: object | None = None
    ) -> AsyncIterator[dict[str, Any]]: ...


class MockProvider:
    def __init__(self, source: EventSource) -> None:
        self.source = source
        self.bodies = RequestBodies()

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        request = self.bodies.body(model, context)

        async def pump(out: AssistantMessageEventStream) -> None:
            async for data in self.source.stream(request, options.signal):
                out.push(parse_event(data, where=f"{model.provider} event"))

        return produce(pump, empty_reply(model, options))
