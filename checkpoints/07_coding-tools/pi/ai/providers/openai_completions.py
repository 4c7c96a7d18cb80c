"""Step 04: a real provider: OpenAI's Chat Completions API over httpx, read as SSE.

One call is one HTTP exchange. The Context becomes a JSON body (`openai_convert`), POSTed to
`{base_url}/chat/completions` with `stream: true`. The reply arrives as server-sent events,
one JSON chunk per `data:` line, until `data: [DONE]`; `openai_wire` turns the chunks into our
events. `httpx_sse` finds the events in the bytes, however the network cut them up.

Like every provider, this one never raises into its caller. A refused request, a dropped
connection, a chunk that is not JSON, an abort: each ends the stream with one `error` event
whose message keeps what had arrived, with the API key redacted from the text.
"""

from __future__ import annotations

import json

import httpx
from httpx_sse import EventSource

from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.http_exchange import send_with_retry, stream_exchange
from pi.ai.providers.openai_convert import chat_completions_body, headers_for
from pi.ai.providers.openai_wire import ReplyBuilder, WireError
from pi.ai.retry import RetryPolicy
from pi.ai.stream import AssistantMessageEventStream

API = "openai-completions"
TIMEOUT = httpx.Timeout(300.0, connect=10.0)  # a slow model may think for minutes


class OpenAICompletionsProvider:
    """Speaks `openai-completions`: one POST per call, the reply read as it streams."""

    def __init__(
        self, client: httpx.AsyncClient | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.client = client  # tests pass one with an httpx.MockTransport; None = the network
        self.retry = retry or RetryPolicy()

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        """Start the exchange in the background and return its event stream at once."""

        async def exchange(out: AssistantMessageEventStream) -> None:
            await self.exchange(model, context, options, out)

        return stream_exchange(model, options, exchange)

    async def exchange(
        self, model: Model, context: Context, options: StreamOptions,
        out: AssistantMessageEventStream,
    ) -> None:
        if not model.base_url:
            raise WireError(f"model {model.id!r} has no base_url to send the request to")
        client = self.client or httpx.AsyncClient(timeout=TIMEOUT)
        request = client.build_request(
            "POST", f"{model.base_url.rstrip('/')}/chat/completions",
            json=chat_completions_body(model, context, options), headers=headers_for(options),
        )
        try:
            response = await send_with_retry(client, request, self.retry, options)
            builder = ReplyBuilder(out)
            builder.start()
            try:
                await read_stream(response, builder)
            finally:
                await response.aclose()
        finally:
            if self.client is None:
                await client.aclose()


async def read_stream(response: httpx.Response, builder: ReplyBuilder) -> None:
    """Feed each SSE chunk to the builder until `[DONE]` or the end of the body."""
    async for event in EventSource(response).aiter_sse():
        if event.data == "[DONE]":
            break
        if not event.data:
            continue
        try:
            chunk = json.loads(event.data)
        except ValueError:
            raise WireError(f"a stream chunk is not JSON: {event.data[:200]}") from None
        if not isinstance(chunk, dict):
            raise WireError(f"a stream chunk is not a JSON object: {event.data[:200]}")
        builder.feed(chunk)
    builder.finish()
