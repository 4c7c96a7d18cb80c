"""What every HTTP provider shares, written once: the exchange runs in the background, an abort
cuts through anything, a refused request is sent again when the `RetryPolicy` says so (only a
request, never a reply that has started streaming), and every failure becomes an error reply
with the API key redacted. Jitter, sleep and time are injected, so a test replays a sequence."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from httpx_sse import EventSource

from pi.ai.bounded import read_json
from pi.ai.messages import json_text
from pi.ai.model import Context, Model, StreamOptions, empty_reply
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.providers.reply_blocks import WireError, json_object
from pi.ai.redact import clip, redact, usable_key
from pi.ai.stream import AssistantMessageEventStream, produce

TIMEOUT = httpx.Timeout(300.0, connect=10.0)  # a slow model may think for minutes
RETRY_STATUSES = frozenset({408, 409, 429})
ERROR_REPLY_LIMIT = 1_000  # characters of a failure an error reply keeps (and the session file)
Json = dict[str, Any]  # a JSON object: a request body, a stream event


@dataclass(frozen=True)
class RetryPolicy:
    """How persistent to be. Off by default: retrying is a choice the caller makes."""

    max_retries: int = 0
    base_delay: float = 0.5  # seconds before the first retry, doubled for each further one
    max_delay: float = 60.0  # the longest wait we accept, from backoff or from the server
    jitter: float = 0.25  # each backoff wait is shortened by up to this fraction
    random: Callable[[], float] = lambda: 0.0  # exact waits unless a test injects a source
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


@dataclass(frozen=True)
class RetryDecision:
    """What to do after a failed attempt; `note` says why not, for the error text."""

    retry: bool
    wait: float = 0.0
    note: str = ""


def decide(policy: RetryPolicy, attempt: int, status: int | None, headers: Mapping[str, str],
           now_ms: int) -> RetryDecision:
    """Whether failed attempt `attempt` (0 = the first) is sent again; `status` is None when
    no response arrived at all."""
    header = headers.get("x-should-retry")  # the server's own word wins over the status
    if header in ("true", "false"):
        retryable = header == "true"
    else:
        retryable = status is None or status in RETRY_STATUSES or status >= 500
    if not retryable:
        return RetryDecision(False)
    if attempt >= policy.max_retries:
        return RetryDecision(False, note=f"gave up after {attempt} retries" if attempt else "")
    asked = server_wait(headers, now_ms)
    if asked is None:  # exponential backoff, jittered so many clients do not retry at once
        wait = min(policy.base_delay * 2.0**attempt, policy.max_delay)
        return RetryDecision(True, wait * (1 - policy.jitter * policy.random()))
    if asked > policy.max_delay:
        return RetryDecision(False, asked, f"not retried: the server asked to wait {asked:g} s, "
                                           f"more than max_delay {policy.max_delay:g} s")
    return RetryDecision(True, asked)


def server_wait(headers: Mapping[str, str], now_ms: int) -> float | None:
    """Seconds the server asks us to wait (`retry-after-ms`, `retry-after`), or None."""
    for name, per_second in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name, "")) / per_second
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    try:  # an HTTP date such as "Wed, 21 Oct 2015 07:28:00 GMT"
        when = parsedate_to_datetime(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(when.timestamp() - now_ms / 1000, 0.0)


class HttpProvider:
    """One POST per call, the reply read as it streams; a subclass says what to send where
    (`path`, `body`, `headers`) and how to read the reply (`read`)."""

    path: str

    def __init__(self, client: httpx.AsyncClient | None = None,
                 retry: RetryPolicy | None = None) -> None:
        self.client = client  # tests pass one with an httpx.MockTransport; None = the network
        self.retry = retry or RetryPolicy()

    def stream(self, model: Model, context: Context,
               options: StreamOptions) -> AssistantMessageEventStream:
        """Start the exchange in the background and return its event stream at once. An abort
        cancels it wherever it waits and ends the reply `aborted`, keeping what had arrived."""
        async def pump(out: AssistantMessageEventStream) -> None:
            work = asyncio.ensure_future(self.exchange(model, context, options, out))
            if options.signal is not None:
                options.signal.on_abort(work.cancel)
            try:
                await work
            except asyncio.CancelledError:
                if options.signal is None or not options.signal.aborted:
                    raise
                out.fail("Request was aborted", "aborted")
            except Exception as error:  # every failure becomes an error reply, key redacted
                out.fail(clip(redact(describe(error, model), [options.api_key]), ERROR_REPLY_LIMIT))

        return produce(pump, empty_reply(model, options))

    async def exchange(self, model: Model, context: Context, options: StreamOptions,
                       out: AssistantMessageEventStream) -> None:
        if not model.base_url:
            raise WireError(f"model {model.id!r} has no base_url to send the request to")
        client = self.client or httpx.AsyncClient(timeout=TIMEOUT)
        request = client.build_request(
            "POST", f"{model.base_url.rstrip('/')}{self.path}",
            content=json_text(self.body(model, context, options)).encode("utf-8"),
            headers=self.headers(usable_key(options.api_key)))
        try:
            response = await send_with_retry(client, request, self.retry, options)
            builder = ReplyBuilder(out)
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

    def body(self, model: Model, context: Context, options: StreamOptions) -> Json:
        raise NotImplementedError

    def headers(self, key: str | None) -> dict[str, str]:
        raise NotImplementedError

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        raise NotImplementedError


async def send_with_retry(client: httpx.AsyncClient, request: httpx.Request, policy: RetryPolicy,
                          options: StreamOptions) -> httpx.Response:
    """The response whose body is about to stream; a refusal not retried is a WireError."""
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


async def sse_objects(response: httpx.Response) -> AsyncIterator[tuple[str, Json]]:
    """Each SSE event's name and JSON object, until `[DONE]` or the end of the body."""
    async for event in EventSource(response).aiter_sse():
        if event.data == "[DONE]":
            return
        if event.data:
            yield event.event, json_object(event.data, "a stream event")


async def error_text(response: httpx.Response, key: str | None) -> str:
    """`HTTP 429: <the provider's own message>` from an error response (then closed); the text
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
    text = clip(redact(message if isinstance(message, str) and message else body, [key]), 500)
    return f"HTTP {response.status_code}: {text or response.reason_phrase}"


def describe(error: Exception, model: Model) -> str:
    """Our own errors (and a practice stub's NotImplementedError) say what happened; network
    errors also name their type; anything else is a reply in a shape we did not expect."""
    if isinstance(error, (WireError, ValueError, NotImplementedError)):
        return str(error)
    if isinstance(error, (httpx.HTTPError, OSError)):
        return f"{type(error).__name__}: {error}"
    return f"the {model.provider} server sent a reply in a shape this client cannot read"
