"""Step 13: a second real provider: Anthropic's Messages API over httpx, read as SSE.

Same shape as the OpenAI provider of step 04, different wire: the Context becomes a Messages
body (`anthropic_convert`), POSTed to `{base_url}/v1/messages` with `stream: true` and the
key in `x-api-key`; the reply arrives as *named* server-sent events that `anthropic_wire`
reads into our events, ending at `message_stop`. Everything that does not depend on the wire
(abort, retries, every failure an error reply with the key redacted) is `http_exchange`.
"""

from __future__ import annotations

import json

import httpx
from httpx_sse import EventSource

from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.anthropic_convert import messages_body
from pi.ai.providers.anthropic_wire import AnthropicReader
from pi.ai.providers.http_exchange import send_with_retry, stream_exchange
from pi.ai.providers.openai_completions import TIMEOUT
from pi.ai.providers.openai_wire import ReplyBuilder, WireError
from pi.ai.retry import RetryPolicy
from pi.ai.stream import AssistantMessageEventStream

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"  # the API version this adapter speaks, sent with every request


class AnthropicMessagesProvider:
    """Speaks `anthropic-messages`: one POST per call, the reply read as it streams."""

    def __init__(
        self, client: httpx.AsyncClient | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.client = client  # tests pass one with a MockTransport; None = the network
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
            "POST", f"{model.base_url.rstrip('/')}/v1/messages",
            json=messages_body(model, context, options), headers=headers_for(options),
        )
        try:
            response = await send_with_retry(client, request, self.retry, options)
            builder = ReplyBuilder(out)
            builder.start()
            try:
                await read_events(response, AnthropicReader(builder))
            finally:
                await response.aclose()
        finally:
            if self.client is None:
                await client.aclose()


def headers_for(options: StreamOptions) -> dict[str, str]:
    """The only place the API key goes: the `x-api-key` header."""
    headers = {"content-type": "application/json", "accept": "text/event-stream",
               "anthropic-version": ANTHROPIC_VERSION}
    if options.api_key:
        headers["x-api-key"] = options.api_key
    return headers


async def read_events(response: httpx.Response, reader: AnthropicReader) -> None:
    """Feed each named event to the reader until `message_stop` or the end of the body."""
    async for event in EventSource(response).aiter_sse():
        if not event.data:
            continue
        try:
            data = json.loads(event.data)
        except ValueError:
            raise WireError(f"a stream event is not JSON: {event.data[:200]}") from None
        if not isinstance(data, dict):
            raise WireError(f"a stream event is not a JSON object: {event.data[:200]}")
        reader.feed(event.event, data)
        if reader.stopped:
            break
    reader.finish()
