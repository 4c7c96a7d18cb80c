"""Retry only what passes on its own; an overflow is for compaction, not retry."""

import pytest

from pi.ai import AssistantMessage, Usage
from pi.coding_agent.runtime.errors import (
    ERROR_TEXT_LIMIT,
    is_context_overflow,
    is_transient,
    retry_delays,
)

STEP = 13


def failed(text: str, stop_reason: str = "error") -> AssistantMessage:
    return AssistantMessage(content=(), api="x", provider="x", model="m", usage=Usage.zero(),
                            stop_reason=stop_reason, error_message=text, timestamp=0)


@pytest.mark.parametrize("text", [
    "429 Too Many Requests", "500 Internal Server Error", "HTTP 503", "status 529: overloaded",
    "Overloaded", "rate limit reached", "Rate-limited, retry later", "connection reset by peer",
    "fetch failed", "upstream connect error or disconnect/reset before headers",
    "The other side closed the connection", "server_error: try again",
    "read ECONNRESET", "write EPIPE", "connect ETIMEDOUT 10.0.0.1:443", "HTTP 503.",
    "request timed out", "stream ended without a finish reason", "Service temporarily unavailable",
])
def test_transient_failures_are_retried(text: str) -> None:
    assert is_transient(failed(text), 200_000), f"{text!r} should be retried"


@pytest.mark.parametrize("text", [
    "5000 tokens requested", "invalid value for max_tokens: 15000", "model gpt-4.1-2025-04-14",
    "401 Unauthorized: invalid api key", "400 Bad Request: tools[0].name is invalid",
    "unknown option XECONNRESET_MODE",
])
def test_failures_that_only_contain_a_status_like_number_are_not_retried(text: str) -> None:
    assert not is_transient(failed(text), 200_000), f"{text!r} should not be retried"


@pytest.mark.parametrize("text", [
    "429 insufficient_quota: you exceeded your current quota", "503 billing hard limit reached",
    "rate limit: Monthly usage limit reached",
])
def test_a_spent_quota_is_not_retried_even_with_a_transient_status(text: str) -> None:
    assert not is_transient(failed(text), 200_000), f"{text!r} should not be retried"


@pytest.mark.parametrize(("text", "overflow"), [
    ("413 Payload Too Large", True), ("OpenAI API error (413): body too big", True),
    ("maximum context length is 8192 tokens", True), ("request_too_large", True),
    ("Throttling error: Too many tokens, please wait", False),
    ("the context window of this model is 8k; pick a shorter file", False),
])
def test_an_overflow_is_what_a_provider_says_about_a_request_that_did_not_fit(
        text: str, overflow: bool) -> None:
    assert is_context_overflow(failed(text), 200_000) is overflow, f"{text!r}: overflow {overflow}"


def test_only_the_start_of_a_huge_error_text_is_matched() -> None:
    # a pattern like "input token count.*exceeds the maximum" takes time that grows with the
    # square of the text: a megabyte of it must be judged by its start, and at once
    huge = failed("input token count " * 200_000 + "exceeds the maximum")
    assert not is_context_overflow(huge, 200_000)
    assert not is_transient(failed("x" * ERROR_TEXT_LIMIT + " 503"), 200_000)
    assert is_transient(failed("x" * (ERROR_TEXT_LIMIT - 4) + " 503"), 200_000)


def test_a_context_overflow_is_not_transient_even_with_a_status_code() -> None:
    overflow = failed("400 prompt is too long: 213462 tokens > 200000 maximum (status 500?)")
    assert is_context_overflow(overflow, 200_000) and not is_transient(overflow, 200_000)


def test_a_successful_reply_whose_input_exceeds_the_window_is_an_overflow() -> None:
    usage = Usage.zero().model_copy(update={"input": 150_000, "cache_read": 60_000})
    reply = failed("", "stop").model_copy(update={"usage": usage, "error_message": None})
    assert is_context_overflow(reply, 200_000) and not is_context_overflow(reply, 300_000)
    tool_use = reply.model_copy(update={"stop_reason": "toolUse"})
    assert not is_context_overflow(tool_use, 200_000)  # only a stop is judged by its usage


def test_a_reply_cut_at_its_length_limit_with_nothing_written_is_an_overflow() -> None:
    usage = Usage.zero().model_copy(update={"input": 990})
    empty = failed("", "length").model_copy(update={"usage": usage, "error_message": None})
    assert is_context_overflow(empty, 1000) and not is_context_overflow(empty, 1001)
    wrote = empty.model_copy(update={"usage": usage.model_copy(update={"output": 5})})
    assert not is_context_overflow(wrote, 1000)


def test_aborted_and_successful_replies_are_never_transient() -> None:
    assert not is_transient(failed("429", "aborted"), 200_000)
    assert not is_transient(failed("", "stop"), 200_000)


def test_a_rate_limit_that_mentions_tokens_is_transient_not_an_overflow() -> None:
    reply = failed("429 rate limit: too many tokens per minute")
    assert is_transient(reply, 200_000) and not is_context_overflow(reply, 200_000)


def test_an_error_reply_without_a_message_is_not_transient() -> None:
    assert not is_transient(failed(""), 200_000)


def test_retry_waits_are_whole_milliseconds() -> None:
    assert all(type(wait) is int for wait in retry_delays(2000, 8))


def test_backoff_is_two_four_eight_seconds() -> None:
    assert retry_delays() == [2000, 4000, 8000]


def test_no_retry_wait_is_longer_than_a_minute() -> None:
    assert retry_delays(2000, 8) == [2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]
    assert retry_delays(90_000, 2) == [60000, 60000]
