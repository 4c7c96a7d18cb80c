"""Route one HTTP request to a MockModel and decide the whole response.

This is the single place both serving styles (in-process httpx transports and the real
local server) go through, so they answer byte for byte alike. The status follows the
scripted turn: HTTP-shaped failures (rate limit, server error, overload, context overflow)
become error responses, everything else a 200 reply in the route's wire format.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..loading import within_bounds
from ..model import MockModel
from ..script import ScriptError, Turn
from .anthropic_reply import anthropic_error, anthropic_message, anthropic_stream
from .anthropic_request import anthropic_request
from .openai_reply import openai_completion, openai_error, openai_stream
from .openai_request import openai_request
from .wire import ErrorKind, Reply, RequestError, WireError, WireResponse, json_response

HTTP_FAILURES: dict[str, ErrorKind] = {
    "rate_limit": "rate_limit",
    "server_error": "server_error",
    "overloaded": "overloaded",
    "context_overflow": "context_overflow",
}


@dataclass(frozen=True)
class Face:
    """One wire format: how to read its requests and write its replies and errors."""

    translate: Callable[[dict[str, Any], int], dict[str, Any]]
    stream: Callable[[Reply], WireResponse]
    whole: Callable[[Reply], WireResponse]
    error: Callable[[WireError], WireResponse]


OPENAI = Face(openai_request, openai_stream, openai_completion, openai_error)
ANTHROPIC = Face(anthropic_request, anthropic_stream, anthropic_message, anthropic_error)
ROUTES = {"/v1/chat/completions": OPENAI, "/v1/messages": ANTHROPIC}


async def respond(model: MockModel, method: str, path: str, body: bytes) -> WireResponse:
    """The complete response to `method path` with `body`; never raises for bad input."""
    face = ROUTES.get(path)
    if face is None or method != "POST":
        return _not_found(method, path)
    try:
        payload = within_bounds(json.loads(body))
    except RecursionError:
        return face.error(WireError("invalid_request", "request body is nested too deeply"))
    except ScriptError as error:  # a bound of within_bounds: the JSON itself was fine
        return face.error(WireError("invalid_request", f"request body refused: {error}"))
    except ValueError as error:
        return face.error(WireError("invalid_request", f"request body is not valid JSON: "
                                                       f"{' '.join(str(error).split())}"))
    if not isinstance(payload, dict):
        return face.error(WireError("invalid_request", "request body must be a JSON object"))
    model.wire_requests.append(copy.deepcopy(payload))
    try:
        request = face.translate(payload, model.clock.now_ms())
    except RequestError as error:
        return face.error(WireError("invalid_request", str(error)))
    return await _play(model, face, request, payload)


async def _play(
    model: MockModel, face: Face, request: dict[str, Any], payload: dict[str, Any]
) -> WireResponse:
    # The stream runs synchronously up to the point where it records the request, so the
    # length read here is this request's position even with other requests in flight.
    position = len(model.requests)
    events = tuple([event async for event in model.stream(request)])
    number = position + 1
    failure = _http_failure(model.answered_by[position], events[-1])
    if failure is not None:
        return face.error(failure)
    options = payload.get("stream_options")
    wants_usage = isinstance(options, dict) and options.get("include_usage") is True
    reply = Reply(events, number, include_usage=wants_usage)
    return face.stream(reply) if payload.get("stream") is True else face.whole(reply)


def _http_failure(turn: Turn | None, terminal: dict[str, Any]) -> WireError | None:
    """The HTTP error a run turns into, or None when it is a 200 (maybe cut off) reply."""
    message = terminal["error"]["errorMessage"] if terminal["type"] == "error" else ""
    if turn is None:
        return WireError("no_turn", message)
    failure = turn.failure
    if failure is None or failure.kind not in HTTP_FAILURES:
        return None
    return WireError(HTTP_FAILURES[failure.kind], message, failure.retry_after)


def _not_found(method: str, path: str) -> WireResponse:
    """Unknown routes answer in a shape both SDKs can read: `error.type` and `error.message`."""
    message = f"no route for {method} {path}; use POST /v1/chat/completions or /v1/messages"
    body = {"type": "error", "error": {"type": "not_found_error", "message": message}}
    return json_response(404, body)
