"""A failed request is sent again only when the policy says so, after a known wait."""

import asyncio
import json

import httpx
import pytest

from pi.ai.abort import AbortController
from pi.ai.messages import AssistantMessage, UserMessage
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.http_exchange import RetryPolicy, decide
from pi.ai.providers.openai_completions import OpenAICompletionsProvider

STEP = 4
NOW_MS = 1_445_412_400_000  # Wed, 21 Oct 2015 07:26:40 GMT
GPT = Model(id="gpt-4.1-mini", api="openai-completions", provider="openai",
            base_url="https://api.openai.test/v1")
HELLO = Context(messages=(UserMessage(content="Hi", timestamp=0),))
OK = ('data: {"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":"stop"}]}\n\n'
      "data: [DONE]\n\n")


class FakeSleep:
    """Records every wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def policy(retries: int = 3, **extra) -> RetryPolicy:
    return RetryPolicy(max_retries=retries, random=lambda: 0.5, **extra)


def ok() -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=OK)


def call(responses: list, retry: RetryPolicy | None = None,
         options: StreamOptions | None = None) -> tuple[AssistantMessage, int]:
    """The final message, and how many requests were sent, answering from `responses`."""
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        response = responses[min(len(sent), len(responses)) - 1]
        if isinstance(response, Exception):
            raise response
        return response

    async def run() -> AssistantMessage:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            stream = OpenAICompletionsProvider(client, retry).stream(
                GPT, HELLO, options or StreamOptions(clock=lambda: NOW_MS))
            return await stream.result()

    return asyncio.run(run()), len(sent)


def test_retry_is_off_by_default() -> None:
    message, sent = call([httpx.Response(503, text="overloaded"), ok()])
    assert sent == 1 and message.error_message == "HTTP 503: overloaded"


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
def test_timeouts_conflicts_rate_limits_and_server_errors_are_retried(status) -> None:
    assert decide(policy(), 0, status, {}, NOW_MS).retry


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_client_errors_are_not_retried(status) -> None:
    assert not decide(policy(), 0, status, {}, NOW_MS).retry


def test_a_connection_error_is_retried_and_the_next_attempt_can_succeed() -> None:
    sleep = FakeSleep()
    message, sent = call([httpx.ConnectError("refused"), ok()], policy(sleep=sleep))
    assert (message.stop_reason, message.content[0].text, sent) == ("stop", "Hello", 2)
    assert sleep.waits == [0.4375]


def test_the_x_should_retry_header_wins_over_the_status_both_ways() -> None:
    assert decide(policy(), 0, 400, {"x-should-retry": "true"}, NOW_MS).retry
    assert not decide(policy(), 0, 503, {"x-should-retry": "false"}, NOW_MS).retry


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after": "3"}, 3.0), ({"retry-after": "1.5"}, 1.5), ({"retry-after-ms": "250"}, 0.25),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 80.0),
    ({"retry-after": "Wed, 21 Oct 2015 07:00:00 GMT"}, 0.0), ({"retry-after": "soon"}, 0.4375),
])
def test_the_wait_the_server_asks_for_is_honoured(headers, wait) -> None:
    decision = decide(policy(max_delay=120), 0, 429, headers, NOW_MS)
    assert decision.retry and decision.wait == pytest.approx(wait)


def test_backoff_doubles_each_time_with_jitter_from_the_injected_random() -> None:
    sleep = FakeSleep()
    failures = [httpx.Response(500, text="boom")] * 3
    message, sent = call([*failures, ok()], policy(sleep=sleep))
    assert (message.stop_reason, sent) == ("stop", 4)
    assert sleep.waits == [0.4375, 0.875, 1.75]  # 0.5 * 2**n * (1 - 0.25 * 0.5)


def test_backoff_never_exceeds_max_delay() -> None:
    assert decide(policy(20, max_delay=4.0), 10, 500, {}, NOW_MS).wait == 3.5


def test_a_wait_above_max_delay_fails_at_once_and_says_so() -> None:
    sleep = FakeSleep()
    limited = httpx.Response(429, headers={"retry-after": "120"}, json={"error": {
        "message": "Rate limit reached"}})
    message, sent = call([limited, ok()], policy(sleep=sleep))
    assert sent == 1 and sleep.waits == []
    assert message.error_message == (
        "HTTP 429: Rate limit reached (not retried: the server asked to wait 120 s, "
        "more than max_delay 60 s)")


def test_giving_up_says_how_many_retries_were_made() -> None:
    message, sent = call([httpx.Response(429, text="slow down")], policy(2, sleep=FakeSleep()))
    assert sent == 3 and message.error_message == "HTTP 429: slow down (gave up after 2 retries)"


def test_a_reply_that_has_started_streaming_is_never_retried() -> None:
    async def breaks():
        chunk = {"choices": [{"index": 0, "delta": {"content": "Half"}, "finish_reason": None}]}
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        raise httpx.ReadError("connection reset by peer")

    broken = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=breaks())
    message, sent = call([broken, ok()], policy(sleep=FakeSleep()))
    assert sent == 1 and message.stop_reason == "error"
    assert message.error_message == "ReadError: connection reset by peer"
    assert message.content[0].text == "Half"


def test_an_abort_during_a_retry_wait_ends_the_call_as_aborted() -> None:
    controller = AbortController()

    async def sleep_until_aborted(seconds: float) -> None:
        controller.abort()
        await asyncio.Event().wait()

    options = StreamOptions(signal=controller.signal)
    message, sent = call([httpx.Response(503)], policy(sleep=sleep_until_aborted), options)
    assert (message.stop_reason, sent) == ("aborted", 1)
