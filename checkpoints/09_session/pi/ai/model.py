"""What a model request is made of: the `Model` (plain data, as in Pi), the `Context` (system
prompt, messages, tools) and the per-call `StreamOptions` (abort signal, clock, key); and the
model boundary, `Providers.stream(model, context, options)`, which picks the provider for
`model.api`. Whatever goes wrong comes back as a stream ending in one `error` event, never an
exception."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pi.ai.abort import AbortSignal
from pi.ai.content import Wire
from pi.ai.messages import AssistantMessage, Message, Tool, Usage, dump_message
from pi.ai.stream import AssistantMessageEventStream, ErrorReason


class ModelCost(Wire):
    """Prices in dollars per million tokens, as in Pi's catalog; 0 where the course has none."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0


class Model(Wire):
    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: tuple[Literal["text", "image"], ...] = ("text",)
    cost: ModelCost = ModelCost()
    context_window: int = 128_000
    max_tokens: int = 16_384


class Context(Wire):
    system_prompt: str | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[Tool, ...] = ()


def frozen_clock() -> int:
    """The default clock: time stands still at 0, so offline runs are byte-reproducible."""
    return 0


@dataclass(frozen=True)
class StreamOptions:
    signal: AbortSignal | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    api_key: str | None = field(default=None, repr=False)
    clock: Callable[[], int] = frozen_clock


def request_body(model: Model, context: Context) -> dict[str, Any]:
    """The canonical request a provider receives: the model id plus the context as JSON."""
    body: dict[str, Any] = {"model": model.id}
    if context.system_prompt is not None:
        body["systemPrompt"] = context.system_prompt
    body["messages"] = [dump_message(message) for message in context.messages]
    if context.tools:
        body["tools"] = [tool.model_dump(by_alias=True) for tool in context.tools]
    return body


def empty_reply(model: Model, options: StreamOptions) -> AssistantMessage:
    """The reply before anything arrived: no content, no usage, attributed to `model`."""
    return AssistantMessage(content=(), api=model.api, provider=model.provider, model=model.id,
                            usage=Usage.zero(), stop_reason="stop", timestamp=options.clock())


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
        """The reply of the provider for `model.api`, never an exception: an aborted signal is
        one "aborted" error event (the provider not called), an unknown api one naming it."""
        options = options or StreamOptions()
        if options.signal is not None and options.signal.aborted:
            return failed_stream(model, options, "Request was aborted", "aborted")
        provider = self._providers.get(model.api)
        if provider is None:
            return failed_stream(model, options, f"no provider registered for api {model.api!r}")
        return provider.stream(model, context, options)

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
