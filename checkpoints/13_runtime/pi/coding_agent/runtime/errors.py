"""Which failed replies are worth retrying, and which mean "the context is too big".

Rate limits and dropped connections pass on their own; an overflow needs compaction. Pi
matches substrings ("500" in "5000 tokens" is transient); here codes and words stand alone.
"""

from __future__ import annotations

import re

from pi.ai import AssistantMessage

TRANSIENT = re.compile(
    r"(?<![\w.])(429|500|502|503|504|529)(?![\w.])"
    r"|\boverloaded\b|\brate[ _-]?limit(ed)?\b|\btoo many requests\b"
    r"|\bservice[ _-]?unavailable\b|\bserver[ _-]?error\b|\binternal[ _-]?error\b"
    r"|\bconnection[ _-]?(error|refused|reset)\b|\bother side closed\b|\bfetch failed\b"
    r"|\bupstream[ _-]?connect\b|\breset before headers\b|\bterminated\b|\bretry delay\b"
    r"|\b(ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)\b",  # Pi 1.x: a bare socket code
    re.IGNORECASE,
)
OVERFLOW = re.compile(
    r"prompt is too long|context[ _-]?length[ _-]?exceeded|maximum context length"
    r"|exceeds the context window|too many tokens|input is too long|context window",
    re.IGNORECASE,
)


def is_context_overflow(message: AssistantMessage, context_window: int) -> bool:
    """The request did not fit: said by the provider, or shown by the usage of a reply."""
    if message.stop_reason == "error":
        return bool(OVERFLOW.search(message.error_message or ""))
    used = message.usage.input + message.usage.cache_read
    return message.stop_reason != "aborted" and used > context_window


def is_transient(message: AssistantMessage, context_window: int) -> bool:
    """A failed reply that is likely to succeed if the same request is sent again later."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    return bool(TRANSIENT.search(message.error_message))


def retry_delays(base_ms: int = 2000, attempts: int = 3) -> list[int]:
    """Pi's backoff: 2 s, 4 s, 8 s for the default base and three attempts."""
    return [base_ms * 2**attempt for attempt in range(attempts)]
