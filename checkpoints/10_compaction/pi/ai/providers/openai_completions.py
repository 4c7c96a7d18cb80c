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

import asyncio
import json

import httpx
from httpx_sse import EventSource

from pi.ai.model import Context, Model, StreamOptions, empty_reply
from pi.ai.providers.openai_convert import chat_completions_body, headers_for
from pi.ai.providers.openai_wire import ReplyBuilder, WireError
from pi.ai.redact import redact
from pi.ai.retry import RetryPolicy, decide
from pi.ai.stream import AssistantMessageEventStream, produce

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

        async def pump(out: AssistantMessageEventStream) -> None:
            work = asyncio.ensure_future(self.exchange(model, context, options, out))

            def cancel() -> None:  # an abort cuts through anything, even a stalled read
                work.cancel()

            if options.signal is not None:
                options.signal.on_abort(cancel)
            try:
                await work
            except asyncio.CancelledError:
                if options.signal is None or not options.signal.aborted:
                    raise
                out.fail("Request was aborted", "aborted")
            except Exception as error:  # every failure becomes an error reply, key redacted
                out.fail(redact(describe(error), [options.api_key]))

        return produce(pump, empty_reply(model, options))

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
            response = await self.send(client, request, options)
            builder = ReplyBuilder(out)
            builder.start()
            try:
                await read_stream(response, builder)
            finally:
                await response.aclose()
        finally:
            if self.client is None:
                await client.aclose()

    async def send(
        self, client: httpx.AsyncClient, request: httpx.Request, options: StreamOptions
    ) -> httpx.Response:
        """The response whose body is about to stream, after retries the policy allows.

        Only this part is ever repeated: once a reply streams, a failure ends it as an error.
        """
        attempt = 0
        while True:
            try:
                response = await client.send(request, stream=True)
            except httpx.TransportError as error:
                status, headers = None, httpx.Headers()
                text = f"connection error: {describe(error)}"
            else:
                if response.is_success:
                    return response
                status, headers = response.status_code, response.headers
                text = await error_text(response)
            decision = decide(self.retry, attempt, status, headers, options.clock())
            if not decision.retry:
                raise WireError(f"{text} ({decision.note})" if decision.note else text)
            await self.retry.sleep(decision.wait)
            attempt += 1


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


async def error_text(response: httpx.Response) -> str:
    """`HTTP 429: <the provider's own message>`, read from an error response (then closed)."""
    try:
        body = (await response.aread()).decode("utf-8", "replace").strip()
    finally:
        await response.aclose()
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        error = None
    message = error.get("message") if isinstance(error, dict) else error
    text = str(message) if isinstance(message, str) and message else body[:500]
    return f"HTTP {response.status_code}: {text or response.reason_phrase}"


def describe(error: Exception) -> str:
    """Our own errors say what happened; others also name their type (`ReadError: …`)."""
    return str(error) if isinstance(error, WireError) else f"{type(error).__name__}: {error}"
