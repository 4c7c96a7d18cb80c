"""A second real provider: Anthropic's Messages API over httpx, read as SSE.

Same shape as the OpenAI provider of step 04, different wire: the Context becomes a Messages
body (`anthropic_convert`), POSTed to `{base_url}/v1/messages` with `stream: true` and the
key in `x-api-key`; the reply arrives as *named* server-sent events that `anthropic_wire`
reads into our events, ending at `message_stop`. Everything that does not depend on the wire
(abort, retries, every failure an error reply with the key redacted) is `http_exchange`.
"""

from __future__ import annotations


import httpx
from httpx_sse import EventSource

from pi.ai.bounded import TooLarge, read_json
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.anthropic_convert import messages_body
from pi.ai.providers.anthropic_wire import AnthropicReader
from pi.ai.providers.http_exchange import HttpProvider
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.providers.reply_blocks import WireError
from pi.ai.redact import clip, usable_key

API = "anthropic-messages"
ANTHROPIC_VERSION = "2023-06-01"  # the API version this adapter speaks, sent with every request


class AnthropicMessagesProvider(HttpProvider):
    """Speaks `anthropic-messages`: POST `/v1/messages`, read named SSE events."""

    path = "/v1/messages"

    def body(self, model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
        return messages_body(model, context, options)

    def headers(self, options: StreamOptions) -> dict[str, str]:
        return headers_for(options)

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        await read_events(response, AnthropicReader(builder))


def headers_for(options: StreamOptions) -> dict[str, str]:
    """The only place the API key goes: the `x-api-key` header."""
    headers = {"content-type": "application/json", "accept": "text/event-stream",
               "anthropic-version": ANTHROPIC_VERSION}
    key = usable_key(options.api_key)
    if key:
        headers["x-api-key"] = key
    return headers


async def read_events(response: httpx.Response, reader: AnthropicReader) -> None:
    """Feed each named event to the reader until `message_stop` or the end of the body."""
    async for event in EventSource(response).aiter_sse():
        if not event.data:
            continue
        try:
            data = read_json(event.data)
        except TooLarge as error:
            raise WireError(f"a stream event is {error}") from None
        except ValueError:
            raise WireError(f"a stream event is not JSON: {clip(event.data, 200)}") from None
        if not isinstance(data, dict):
            raise WireError(f"a stream event is not a JSON object: {clip(event.data, 200)}")
        reader.feed(event.event, data)
        if reader.stopped:
            break
    reader.finish()
