"""Which failed replies are worth retrying, and which mean "the context is too big": rate
limits and dropped connections pass on their own, an overflow needs compaction, a spent quota
needs a person. The patterns are Pi 1.6's (`pi-ai`'s retry.ts and overflow.ts)."""

from __future__ import annotations

import re

from pi.ai import AssistantMessage

ERROR_TEXT_LIMIT = 4_000  # the start of an error is matched: one pattern's time is quadratic
TRANSIENT = re.compile(  # worth another try: the server, the network, a rate limit
    "overloaded|server_busy|servers are currently busy|currently experiencing high demand"
    "|model is at capacity|rate.?limit|too many requests"
    "|(?<![a-z0-9])(?:429|500|502|503|504|520|524)(?![a-z0-9])"
    "|service.?(?:is.?)?(?:temporarily.?)?unavailable|server.?error|internal.?error"
    "|provider.?returned.?(?:an.?)?error"
    "|exceeded request buffer limit while retrying upstream|unable to forward upstream"
    "|upstream.?request.?failed|upstream_stream_read_error|stream was interrupted"
    "|http/?2 stream failed|network.?error|connection.?error|connection.?refused"
    "|connection.?lost|connection.?closed|other side closed|fetch failed"
    r"|request to \S+ failed, reason:|getaddrinfo"
    "|(?<![a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?![a-z0-9_])"
    "|connection reset by peer|ENOTFOUND|EAI_AGAIN|upstream.?connect|reset before headers"
    "|socket hang up|socket connection was closed|timed? out|timeout|terminated"
    "|websocket.?closed|websocket.?error|websocket.?connection.?limit.?reached"
    "|ended without|stream ended before message_stop"
    "|stream ended before a terminal response event|http2 request did not get a response"
    "|stream disconnected before completion|cut short after the reply had begun"
    "|pending stream has been canceled|retry delay|you can retry your request"
    "|try your request again|please retry your request|ResourceExhausted"
    "|subscription_sharing_usage_unavailable|subscription_sharing_user_unavailable", re.IGNORECASE)
LIMIT_SPENT = re.compile(  # a quota or budget used up: waiting will not refill it
    "GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance"
    "|insufficient_quota|out of budget|quota exceeded|billing"
    "|subscription_sharing_usage_limit_exceeded"
    "|subscription_sharing_workplace_individual_usage_limit_exceeded"
    r'|"code"\s*:\s*"?1308(?![0-9])', re.IGNORECASE)
OVERFLOW = re.compile(  # what providers say when a request did not fit
    "prompt (?:is )?too long|prompt exceeds max length|request_too_large"
    "|input is too long for requested model|exceeds the context window"
    r"|exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))"
    "|context window exceeded|input token count.*exceeds the maximum"
    r"|maximum prompt length is \d+|reduce the length of the messages"
    r"|maximum context length is \d+ tokens"
    r"|exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?"
    r"|input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)"
    r"|exceeds the limit of \d+|exceeds the available context size"
    "|greater than the context length|context window exceeds limit"
    r"|exceeded model token limit|too large for model with \d+ maximum context length"
    r"|prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?"
    "|model_context_window_exceeded|prompt too long; exceeded (?:max )?context length"
    "|range of input length should be|context[_ ]length[_ ]exceeded|too many tokens"
    r"|token limit exceeded|^(?:[\w -]+ API error \(413\):|413(?:\s|:|\Z))", re.IGNORECASE)
NOT_OVERFLOW = re.compile(  # throttling worded like an overflow
    "^(Throttling error|Service unavailable):|rate limit|too many requests", re.IGNORECASE)


def is_context_overflow(message: AssistantMessage, context_window: int) -> bool:
    """The request did not fit: said by the provider, or shown by the usage of a reply that
    stopped (or ended at its length limit having written nothing)."""
    text = (message.error_message or "")[:ERROR_TEXT_LIMIT]
    if message.stop_reason == "error" and OVERFLOW.search(text) and not NOT_OVERFLOW.search(text):
        return True
    used = message.usage.input + message.usage.cache_read
    if message.stop_reason == "stop":
        return 0 < context_window < used
    return (message.stop_reason == "length" and message.usage.output == 0
            and context_window > 0 and used >= context_window * 0.99)


def is_transient(message: AssistantMessage, context_window: int) -> bool:
    """A failed reply that is likely to succeed if the same request is sent again later."""
    if message.stop_reason != "error" or not message.error_message:
        return False
    if is_context_overflow(message, context_window):
        return False
    text = message.error_message[:ERROR_TEXT_LIMIT]
    return not LIMIT_SPENT.search(text) and bool(TRANSIENT.search(text))


def retry_delays(base_ms: int = 2000, attempts: int = 3) -> list[int]:
    """Pi's backoff: each wait twice the last (2, 4, 8 s by default) and at most a minute."""
    return [min(base_ms * 2**attempt, 60_000) for attempt in range(attempts)]
