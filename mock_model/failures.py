"""The error texts and broken tool-call JSON that scripted failures produce.

Agents recognise failures by their messages (a leading HTTP status for retries, the phrase
"prompt is too long" for context overflow), just as Pi does with real providers. Keeping the
wording in one place makes it easy to document and to match in tests.
"""

from __future__ import annotations

from .script import Failure

ABORTED_MESSAGE = "Request was aborted"
TRUNCATED_MESSAGE = "stream ended before a finish reason"

_FIXED_MESSAGES = {
    "rate_limit": "429 rate limit reached: too many requests to the mock provider, retry later",
    "server_error": "500 internal server error: the mock provider failed to produce a reply",
    "overloaded": "529 overloaded: the mock provider has no capacity right now, retry later",
    "truncated": TRUNCATED_MESSAGE,
}


def failure_message(failure: Failure, input_tokens: int) -> str:
    """The errorMessage for a failed turn; `input_tokens` sizes the context-overflow text."""
    if failure.message is not None:
        return failure.message
    if failure.kind == "context_overflow":
        return context_overflow_message(input_tokens, max(input_tokens - 1, 0))
    return _FIXED_MESSAGES[failure.kind]


def context_overflow_message(prompt_tokens: int, maximum_tokens: int) -> str:
    return (
        "400 invalid request: prompt is too long: "
        f"{prompt_tokens} tokens > {maximum_tokens} maximum"
    )


def break_json(argument_json: str) -> str:
    """Cut the closing brace off an argument object so it can no longer be parsed."""
    return argument_json[:-1] if argument_json.endswith("}") else argument_json + "{"


def exhausted_message(request_number: int, turn_count: int) -> str:
    noun = "turn" if turn_count == 1 else "turns"
    return (
        f"MockModel script exhausted: request {request_number} arrived "
        f"but the script has {turn_count} {noun}"
    )


def responder_crashed_message(error: Exception) -> str:
    return f"MockModel responder raised {type(error).__name__}: {error}"
