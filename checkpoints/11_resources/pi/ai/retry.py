"""When to send a failed request again, and how long to wait first. This only decides; the
provider asks. Jitter, sleep and time are injected, so a test replays a sequence exactly.
Only a request is retried, never a reply that has started streaming."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({408, 409, 429})


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


def decide(
    policy: RetryPolicy,
    attempt: int,
    status: int | None,
    headers: Mapping[str, str],
    now_ms: int,
) -> RetryDecision:
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
        note = f"gave up after {attempt} retries" if attempt else ""
        return RetryDecision(False, note=note)
    asked = server_wait(headers, now_ms)
    if asked is None:  # exponential backoff, jittered so many clients do not retry at once
        wait = min(policy.base_delay * 2.0**attempt, policy.max_delay)
        return RetryDecision(True, wait * (1 - policy.jitter * policy.random()))
    if asked > policy.max_delay:
        note = (f"not retried: the server asked to wait {asked:g} s, "
                f"more than max_delay {policy.max_delay:g} s")
        return RetryDecision(False, asked, note)
    return RetryDecision(True, asked)


def server_wait(headers: Mapping[str, str], now_ms: int) -> float | None:
    """Seconds the server asks us to wait (`retry-after-ms`, `retry-after`), or None."""
    millis = number(headers.get("retry-after-ms"))
    if millis is not None:
        return max(millis / 1000, 0.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = number(value)
    if seconds is not None:
        return max(seconds, 0.0)
    try:  # an HTTP date such as "Wed, 21 Oct 2015 07:28:00 GMT"
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(when.timestamp() - now_ms / 1000, 0.0)


def number(text: str | None) -> float | None:
    """A finite number from a header value, or None."""
    try:
        value = float(text or "nan")
    except ValueError:
        return None
    return value if math.isfinite(value) else None
