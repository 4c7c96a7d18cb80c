"""OpenAI's Chat Completions API over httpx: the Context as a JSON body (`openai_convert`)
POSTed to `{base_url}/chat/completions`; the reply's SSE `data:` chunks, until `[DONE]`, read
by `openai_wire`. Like every provider, it never raises into its caller."""

from __future__ import annotations

import httpx
from httpx_sse import EventSource

from pi.ai.bounded import TooLarge, read_json
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.http_exchange import HttpProvider
from pi.ai.providers.openai_convert import chat_completions_body, headers_for
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.providers.reply_blocks import WireError
from pi.ai.redact import clip

API = "openai-completions"


class OpenAICompletionsProvider(HttpProvider):
    """Speaks `openai-completions`: POST `/chat/completions`, read `data:` chunks as SSE."""

    path = "/chat/completions"

    def body(self, model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
        return chat_completions_body(model, context, options)

    def headers(self, options: StreamOptions) -> dict[str, str]:
        return headers_for(options)

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        await read_stream(response, builder)


async def read_stream(response: httpx.Response, builder: ReplyBuilder) -> None:
    """Feed each SSE chunk to the builder until `[DONE]` or the end of the body."""
    async for event in EventSource(response).aiter_sse():
        if event.data == "[DONE]":
            break
        if not event.data:
            continue
        try:
            chunk = read_json(event.data)
        except TooLarge as error:
            raise WireError(f"a stream chunk is {error}") from None
        except ValueError:
            raise WireError(f"a stream chunk is not JSON: {clip(event.data, 200)}") from None
        if not isinstance(chunk, dict):
            raise WireError(f"a stream chunk is not a JSON object: {clip(event.data, 200)}")
        builder.feed(chunk)
    builder.finish()
