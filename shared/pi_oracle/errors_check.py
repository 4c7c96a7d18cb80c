"""Part 5 of the differential suite: which failed replies Pi retries and which it compacts.

Error texts are drawn from what providers say (status lines, socket codes, quota and overflow
messages in many wordings, numbers that only contain a status code, the throttling texts that
look like an overflow) and glued together in random case and order; usage-only cases cover a
reply that stopped, or hit its length limit, with more input than the window holds. Pi's
`isContextOverflow` and `isRetryableAssistantError` judge each one, and so do the course's
`is_context_overflow` and `is_transient`. (Pi's one provider-specific rule, a Cerebras reply
with no body, is left out: the course has no Cerebras provider.)
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from differential import run_node

FRAGMENTS = (
    "429 Too Many Requests", "500 Internal Server Error", "HTTP 503.", "status 529: overloaded",
    "Error: 502", "520", "524 a timeout occurred", "5000 tokens requested", "version 1.500.2",
    "invalid max_tokens: 15000", "model gpt-4.1-2025-04-14", "401 Unauthorized: invalid api key",
    "rate limit reached", "Rate-limited", "rate_limits_per_org", "server_busy", "server error",
    "internal_error", "Service temporarily unavailable", "upstream connect error",
    "reset before headers", "read ECONNRESET", "XECONNRESET_MODE", "write EPIPE",
    "connect ETIMEDOUT 10.0.0.1:443", "getaddrinfo ENOTFOUND api.example.com", "socket hang up",
    "request timed out", "timeout", "terminated", "fetch failed", "other side closed",
    "stream ended without a finish reason", "request to https://x.test/v1 failed, reason: boom",
    "insufficient_quota", "You exceeded your current quota exceeded", "billing hard limit",
    "Monthly usage limit reached", '{"code": "1308"}', '{"code":13080}', "ResourceExhausted",
    "prompt is too long: 213462 tokens > 200000 maximum", "Prompt too long",
    "request_too_large", "This model's maximum context length is 8192 tokens",
    "exceeds the context window", "exceeds the model's maximum context length of 128,000 tokens",
    "input token count (1200000) exceeds the maximum", "context_length_exceeded",
    "too many tokens", "ThrottlingException: Too many tokens, please wait",
    "Throttling error: slow down", "Service unavailable: try later", "413 Payload Too Large",
    "OpenAI API error (413): too big", "413", "400 status code (no body)", "context window",
    "the context window of this model", "token limit exceeded", "Range of input length should be",
    "please retry your request", "", "ok",
)
SEPARATORS = (" ", ": ", ", ", "\n", " - ")
PROVIDERS = ("openai", "anthropic", "mock")


def error_case(rng: random.Random) -> dict[str, Any]:
    parts = rng.sample(FRAGMENTS, rng.randint(1, 3))
    text = rng.choice(SEPARATORS).join(parts)
    if rng.random() < 0.3:
        text = text.upper() if rng.random() < 0.5 else text.lower()
    stop = "error" if rng.random() < 0.9 else rng.choice(("stop", "aborted", "length"))
    return {"stopReason": stop, "errorMessage": text, "provider": rng.choice(PROVIDERS),
            "input": 0, "cacheRead": 0, "output": 0, "contextWindow": 200_000}


def usage_case(rng: random.Random) -> dict[str, Any]:
    window = rng.choice((0, 1000, 200_000))
    used = rng.choice((0, 500, 989, 990, 999, 1000, 1001, 150_000, 210_000))
    cached = rng.randint(0, used)
    return {"stopReason": rng.choice(("stop", "length", "toolUse", "aborted", "error")),
            "errorMessage": None, "provider": "openai", "input": used - cached,
            "cacheRead": cached, "output": rng.choice((0, 0, 5)), "contextWindow": window}


def course_verdict(case: dict[str, Any]) -> dict[str, bool]:
    from pi.ai import AssistantMessage, Usage
    from pi.coding_agent.runtime.errors import is_context_overflow, is_transient

    usage = Usage.zero().model_copy(update={"input": case["input"], "output": case["output"],
                                            "cache_read": case["cacheRead"]})
    message = AssistantMessage(content=(), api="x", provider=case["provider"], model="m",
                               usage=usage, stop_reason=case["stopReason"],
                               error_message=case["errorMessage"], timestamp=0)
    window = case["contextWindow"]
    return {"overflow": is_context_overflow(message, window),
            "retry": is_transient(message, window)}


def error_verdicts(modules: Path, work: Path, seed: int, count: int = 600) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    cases = [error_case(rng) if rng.random() < 0.8 else usage_case(rng) for _ in range(count)]
    file = work / "error-cases.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    theirs = json.loads(run_node("errors_check.mjs", str(file), modules=modules))
    problems = []
    for number, (case, pi_says) in enumerate(zip(cases, theirs, strict=True)):
        ours = course_verdict(case)
        if ours != pi_says:
            problems.append(f"errors seed {seed} case {number}: course {ours}, Pi {pi_says} "
                            f"for {json.dumps(case)[:300]}")
    return count, problems
