"""What a model request is made of: the `Model` (plain data, as in Pi), the `Context` (system
prompt, messages, tools) and the per-call `StreamOptions` (abort signal, clock, key)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pi.ai.abort import AbortSignal
from pi.ai.content import Wire
from pi.ai.messages import AssistantMessage, Message, Tool, Usage, dump_message


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
