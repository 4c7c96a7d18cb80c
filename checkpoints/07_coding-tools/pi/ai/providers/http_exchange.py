"""What every HTTP provider shares, written once: the exchange runs in the background, an abort
cuts through anything, a refused request is sent again when the `RetryPolicy` says so, and
every failure becomes an error reply with the API key redacted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource

from pi.ai.bounded import TooLarge, read_json
from pi.ai.messages import json_text
from pi.ai.model import Context, Model, StreamOptions, empty_reply
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.providers.reply_blocks import WireError
from pi.ai.redact import clip, redact
from pi.ai.retry import RetryPolicy, decide
from pi.ai.stream import AssistantMessageEventStream, produce

TIMEOUT = httpx.Timeout(300.0, connect=10.0)  # a slow model may think for minutes


class HttpProvider:
    """One POST per call, the reply read as it streams; a subclass says what to send where
    (`path`, `body`, `headers`) and how to read the reply (`read`)."""

    path: str

    def __init__(
        self, client: httpx.AsyncClient | None = None, retry: RetryPolicy | None = None
    ) -> None:
        self.client = client  # tests pass one with an httpx.MockTransport; None = the network
        self.retry = retry or RetryPolicy()

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        """Start the exchange in the background and return its event stream at once. An abort
        cancels it wherever it waits and ends the reply `aborted`, keeping what had arrived."""

        async def pump(out: AssistantMessageEventStream) -> None:
            work = asyncio.ensure_future(self.exchange(model, context, options, out))

            def cancel() -> None:
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
                out.fail(redact(describe(error, model), [options.api_key]))

        return produce(pump, empty_reply(model, options))

    async def exchange(
        self, model: Model, context: Context, options: StreamOptions,
        out: AssistantMessageEventStream,
    ) -> None:
        if not model.base_url:
            raise WireError(f"model {model.id!r} has no base_url to send the request to")
        client = self.client or httpx.AsyncClient(timeout=TIMEOUT)
        request = client.build_request(
            "POST", f"{model.base_url.rstrip('/')}{self.path}",
            content=json_text(self.body(model, context, options)).encode("utf-8"),
            headers=self.headers(options),
        )
        try:
            response = await send_with_retry(client, request, self.retry, options)
            builder = ReplyBuilder(out)
            builder.start()
            try:
                await self.read(response, builder)
            except BaseException:  # a failure or an abort keeps the whole reply so far
                builder.settle()
                raise
            finally:
                await response.aclose()
        finally:
            if self.client is None:
                await client.aclose()

    def body(self, model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
        raise NotImplementedError

    def headers(self, options: StreamOptions) -> dict[str, str]:
        raise NotImplementedError

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        raise NotImplementedError


async def send_with_retry(
    client: httpx.AsyncClient, request: httpx.Request, policy: RetryPolicy,
    options: StreamOptions,
) -> httpx.Response:
    """The response whose body is about to stream, after the retries `policy` allows; a
    refusal not retried raises WireError("HTTP 429: <the provider's message>")."""
    attempt = 0
    while True:
        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError as error:
            status, headers = None, httpx.Headers()
            text = f"connection error: {type(error).__name__}: {error}"
        else:
            if response.is_success:
                return response
            status, headers = response.status_code, response.headers
            text = await error_text(response, options.api_key)
        decision = decide(policy, attempt, status, headers, options.clock())
        if not decision.retry:
            raise WireError(f"{text} ({decision.note})" if decision.note else text)
        await policy.sleep(decision.wait)
        attempt += 1


async def sse_objects(response: httpx.Response) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """Each SSE event's name and JSON object, until `[DONE]` or the end of the body; data
    that is not a JSON object within the bounds is a WireError."""
    async for event in EventSource(response).aiter_sse():
        if event.data == "[DONE]":
            return
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
        yield event.event, data


async def error_text(response: httpx.Response, key: str | None = None) -> str:
    """`HTTP 429: <the provider's own message>` from an error response (then closed); the body
    is redacted before it is cut, so no part of an echoed key survives."""
    try:
        body = (await response.aread()).decode("utf-8", "replace").strip()
    finally:
        await response.aclose()
    try:
        error = read_json(body).get("error")
    except (ValueError, AttributeError):
        error = None
    message = error.get("message") if isinstance(error, dict) else error
    text = message if isinstance(message, str) and message else clip(redact(body, [key]), 500)
    return f"HTTP {response.status_code}: {text or response.reason_phrase}"


def describe(error: Exception, model: Model) -> str:
    """Our own errors (and a practice stub's NotImplementedError) say what happened; network
    errors also name their type; anything else is a reply in a shape we did not expect."""
    if isinstance(error, (WireError, ValueError, NotImplementedError)):
        return str(error)
    if isinstance(error, (httpx.HTTPError, OSError)):
        return f"{type(error).__name__}: {error}"
    if isinstance(error, RecursionError):
        return f"the {model.provider} server sent JSON nested too deeply to read"
    return f"the {model.provider} server sent a reply in a shape this client cannot read"
