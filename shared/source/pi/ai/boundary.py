"""The model boundary: `stream(model, context, options)` picks the provider for `model.api`.
Whatever goes wrong comes back as a stream ending in one `error` event, never an exception."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from pi.ai.messages import AssistantMessage
from pi.ai.model import Context, Model, StreamOptions, empty_reply
from pi.ai.stream import AssistantMessageEventStream, ErrorReason


class Provider(Protocol):
    """Speaks one wire protocol: context in, event stream out."""

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream: ...


StreamFunction = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]


class Providers:
    """A registry of providers by `api`, and the single entry point for model calls."""

    def __init__(self, providers: Mapping[str, Provider] | None = None) -> None:
        self._providers: dict[str, Provider] = dict(providers or {})

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessageEventStream:
        # [exercise 03-boundary]
        options = options or StreamOptions()
        if options.signal is not None and options.signal.aborted:
            return failed_stream(model, options, "Request was aborted", "aborted")
        provider = self._providers.get(model.api)
        if provider is None:
            return failed_stream(model, options, f"no provider registered for api {model.api!r}")
        return provider.stream(model, context, options)
        # [end]

    async def complete(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantMessage:
        """The final message of one call, for callers that do not watch it stream."""
        return await self.stream(model, context, options).result()


def failed_stream(
    model: Model, options: StreamOptions, text: str, reason: ErrorReason = "error"
) -> AssistantMessageEventStream:
    """A stream that is over before it began: one terminal error event."""
    stream = AssistantMessageEventStream(empty_reply(model, options))
    stream.fail(text, reason)
    return stream
