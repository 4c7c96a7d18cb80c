"""Broken SSE streams from OpenAI-compatible and Anthropic servers, through the providers.

Every stream must end in exactly one terminal event; the reply must validate, and written
to a session file it must read back as it was; an error reply says what went wrong in
words, not in Python's (`'list' object has no attribute 'get'`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile.checks import KEY, as_json, no_leak, plain
from hostile.runner import Case, Check

Body = bytes | Callable[[], bytes]


def sse(*chunks: object, done: bool = True) -> bytes:
    lines = [f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n" for c in chunks]
    return "".join(lines + (["data: [DONE]\n\n"] if done else [])).encode()


def delta(finish: str | None = None, **fields: object) -> dict[str, object]:
    return {"id": "chatcmpl-h", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def call_piece(index: object, arguments: str = "", name: str | None = None,
               call_id: str | None = None) -> dict[str, object]:
    function: dict[str, object] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    piece: dict[str, object] = {"index": index, "function": function}
    if call_id is not None:
        piece |= {"id": call_id, "type": "function"}
    return delta(tool_calls=[piece])


def usage(**counts: object) -> dict[str, object]:
    return {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, **counts}}


def raw_usage(fragment: str) -> str:
    return '{"choices": [], "usage": {"prompt_tokens": ' + fragment + ', "completion_tokens": 1}}'


def recorded(name: str) -> bytes:
    from hostile import DATA
    return (DATA / "wire" / name).read_bytes()


def cut(name: str, fraction: float) -> Callable[[], bytes]:
    return lambda: recorded(name)[: int(len(recorded(name)) * fraction)]


def big_arguments() -> bytes:
    value = "x" * 100_000
    text = json.dumps({"path": "a.txt", "content": value})
    pieces = [text[i:i + 100] for i in range(0, len(text), 100)]
    first = call_piece(0, pieces[0], "write", "call_big")
    return sse(first, *(call_piece(0, p) for p in pieces[1:]), delta("tool_calls"))


def big_text() -> bytes:
    return sse(*(delta(content="y" * 256) for _ in range(1024)), delta("stop"))


OPENAI: dict[str, Body] = {
    **{f"{name} cut at {p:.0%}": cut(name, p)
       for name in ("openai-text.sse", "openai-tool-call.sse", "openai-truncated.sse")
       for p in (0.0, 0.03, 0.1, 0.2, 0.33, 0.5, 0.61, 0.75, 0.9, 0.99)},
    "chunk not JSON": sse("{not json", delta("stop")),
    "chunk is a list": sse("[1, 2]"),
    "chunk is a string": sse('"hello"'),
    "chunk is null": sse("null"),
    "choices is a string": sse({"choices": "nope"}),
    "choices is a list of numbers": sse({"choices": [1, 2]}),
    "choices empty, then finish": sse({"choices": []}, delta("stop")),
    "delta is a list": sse({"choices": [{"delta": [1], "finish_reason": None}]}, delta("stop")),
    "content is a number": sse(delta(content=12), delta("stop")),
    "content is an object": sse(delta(content={"a": 1}), delta("stop")),
    "reasoning is a number": sse(delta(reasoning_content=5), delta("stop")),
    "tool_calls is an object": sse(delta(tool_calls={"index": 0}), delta("tool_calls")),
    "tool call item is a number": sse(delta(tool_calls=[3]), delta("tool_calls")),
    "tool call index is a string": sse(call_piece("0", "{}", "ls", "c1"), delta("tool_calls")),
    "tool call index negative": sse(call_piece(-1, "{}", "ls", "c1"), delta("tool_calls")),
    "tool call index 10**30": sse(call_piece(10**30, "{}", "ls", "c1"), delta("tool_calls")),
    "tool call index is a list": sse(call_piece([0], "{}", "ls", "c1"), delta("tool_calls")),
    "function is a string": sse(delta(tool_calls=[{"index": 0, "function": "ls"}]),
                                delta("tool_calls")),
    "arguments is a number": sse(delta(tool_calls=[{"index": 0, "id": "c", "function": {
        "name": "ls", "arguments": 5}}]), delta("tool_calls")),
    "tool name is a number": sse(delta(tool_calls=[{"index": 0, "id": "c", "function": {
        "name": 7, "arguments": "{}"}}]), delta("tool_calls")),
    "tool call id is a number": sse(delta(tool_calls=[{"index": 0, "id": 9, "function": {
        "name": "ls", "arguments": "{}"}}]), delta("tool_calls")),
    "arguments never close": sse(call_piece(0, '{"path": "a', "read", "c1"), delta("tool_calls")),
    "arguments are a JSON list": sse(call_piece(0, "[1]", "read", "c1"), delta("tool_calls")),
    "two calls interleaved": sse(
        call_piece(0, '{"path": ', "read", "c0"), call_piece(1, '{"pattern": ', "grep", "c1"),
        call_piece(0, '"a.txt"}'), call_piece(1, '"TODO"}'), delta("tool_calls")),
    "three calls round robin": sse(
        *(call_piece(i, '{"n": ', "ls", f"c{i}") for i in range(3)),
        *(call_piece(i, f"{i}}}") for i in range(3)), delta("tool_calls")),
    "interleaved calls then text": sse(
        call_piece(0, '{"a": ', "ls", "c0"), call_piece(1, '{"b": ', "ls", "c1"),
        call_piece(1, "2}"), call_piece(0, "1}"), delta(content="and then"),
        delta("tool_calls")),
    "a call continued after text": sse(
        call_piece(0, '{"a": 1}', "ls", "c0"), delta(content="text"), call_piece(0, " "),
        delta("tool_calls")),
    "usage NaN": sse(delta(content="hi"), delta("stop"), raw_usage("NaN")),
    "usage Infinity": sse(delta(content="hi"), delta("stop"), raw_usage("1e400")),
    "usage fractional": sse(delta(content="hi"), delta("stop"), usage(completion_tokens=2.5)),
    "usage negative": sse(delta(content="hi"), delta("stop"), usage(completion_tokens=-4)),
    "usage strings": sse(delta(content="hi"), delta("stop"), usage(prompt_tokens="7")),
    "usage is a list": sse(delta(content="hi"), delta("stop"), {"choices": [], "usage": [1]}),
    "usage details a string": sse(delta(content="hi"), delta("stop"),
                                  usage(prompt_tokens_details="x")),
    "lone surrogate in text": sse('{"choices": [{"delta": {"content": "a\\ud800b"}}]}',
                                  delta("stop")),
    "emoji halves in two chunks": sse('{"choices": [{"delta": {"content": "x\\ud83d"}}]}',
                                      '{"choices": [{"delta": {"content": "\\ude00y"}}]}',
                                      delta("stop")),
    "lone surrogate in tool arguments": sse(
        call_piece(0, '{"path": "\\ud800"}', "read", "c1"), delta("tool_calls")),
    "invalid UTF-8 in a data line": b'data: {"choices": [{"delta": {"content": "\xff\xfe"}}]}\n\n'
                                    + sse(delta("stop")),
    "NUL in text": sse(delta(content="a\x00b"), delta("stop")),
    "terminal escapes in text": sse(delta(content="\x1b]0;t\x07"), delta("stop")),
    "byte order mark first": b"\xef\xbb\xbf" + sse(delta(content="hi"), delta("stop")),
    "CRLF line endings": sse(delta(content="hi"), delta("stop")).replace(b"\n", b"\r\n"),
    "CR line endings": sse(delta(content="hi"), delta("stop")).replace(b"\n", b"\r"),
    "error chunk, a string": sse(delta(content="so far"), {"error": "overloaded"}),
    "error chunk, an object": sse({"error": {"message": "bad", "code": 500}}),
    "error chunk, a list": sse({"error": [1, 2]}),
    "error chunk, a 3.6 MB message": sse({"error": {"message": "input token count " * 200_000}}),
    "unknown finish reason": sse(delta(content="hi"), delta("content_filter")),
    "finish reason is a number": sse(delta(content="hi"), delta(5)),  # type: ignore[arg-type]
    "no finish reason": sse(delta(content="hi")),
    "DONE at once": sse(),
    "data after DONE": sse(delta(content="hi"), delta("stop")) + sse(delta(content="more")),
    "only comments": b": ping\n\n: ping\n\n",
    "empty body": b"",
    "event without data": b"event: message\n\n" + sse(delta("stop")),
    "100 KB of tool arguments in 100-byte deltas": big_arguments,
    "256 KB of text in 256-byte deltas": big_text,
    "a 2 MB single data line": lambda: sse(delta(content="z" * 2_000_000), delta("stop")),
    "deeply nested chunk": lambda: sse('{"choices": [{"delta": {"content": "a"}}], "x": '
                                       + "[" * 100_000 + "]" * 100_000 + "}", delta("stop")),
}

STATUS: dict[str, tuple[int, dict[str, str], bytes]] = {
    "HTTP 400, JSON error": (400, {}, b'{"error": {"message": "bad request"}}'),
    "HTTP 401, error is a string": (401, {}, b'{"error": "unauthorized"}'),
    "HTTP 404, HTML body": (404, {"content-type": "text/html"}, b"<html><h1>404</h1></html>"),
    "HTTP 500, empty body": (500, {}, b""),
    "HTTP 502, invalid UTF-8": (502, {}, b"\xff\xfe\x00 gateway"),
    "HTTP 503, body is a list": (503, {}, b"[1, 2, 3]"),
    "HTTP 429, retry-after a day": (429, {"retry-after": "86400"}, b'{"error": {"message": "slow down"}}'),
    "HTTP 429, retry-after garbage": (429, {"retry-after": "soon"}, b"{}"),
    "HTTP 200, not an event stream": (200, {"content-type": "application/json"}, b'{"choices": []}'),
    "HTTP 200, huge error-ish body": (500, {}, b"E" * 3_000_000),
    "HTTP 418, deep JSON": (418, {}, b'{"error": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    "HTTP 503, a 3.6 MB JSON error message": (
        503, {}, b'{"error": {"message": "' + b"input token count " * 200_000 + b'"}}'),
}


def anthropic_events(*events: tuple[str, object]) -> bytes:
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps({"type": name, **data})  # type: ignore[dict-item]
        out.append(f"event: {name}\ndata: {text}\n\n")
    return "".join(out).encode()


START = ("message_start", {"message": {"id": "msg_h", "usage": {"input_tokens": 5,
                                                                "output_tokens": 1}}})
TEXT_BLOCK = ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
STOP = [("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
        ("message_stop", {})]


def text_piece(text: str, index: int = 0) -> tuple[str, object]:
    return ("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": text}})


ANTHROPIC: dict[str, bytes] = {
    "a clean reply": anthropic_events(START, TEXT_BLOCK, text_piece("hi"), *STOP),
    "no message_start": anthropic_events(TEXT_BLOCK, text_piece("hi"), *STOP),
    "delta for an unknown block": anthropic_events(START, text_piece("hi", index=7), *STOP),
    "delta before any block": anthropic_events(START, text_piece("hi"), *STOP),
    "input_json never closes": anthropic_events(
        START, ("content_block_start", {"index": 0, "content_block": {
            "type": "tool_use", "id": "t1", "name": "read", "input": {}}}),
        ("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta",
                                                       "partial_json": '{"path": '}}),
        *STOP),
    "unknown block type": anthropic_events(START, ("content_block_start", {
        "index": 0, "content_block": {"type": "hologram"}}), *STOP),
    "error event": anthropic_events(START, ("error", {"error": {"type": "overloaded_error",
                                                                "message": "Overloaded"}})),
    "error event, a string": anthropic_events(START, ("error", {"error": "boom"})),
    "error event, a 3.6 MB message": anthropic_events(START, ("error", {"error": {
        "type": "overloaded_error", "message": "input token count " * 200_000}})),
    "usage NaN": anthropic_events(START, TEXT_BLOCK, text_piece("hi"),
                                  ("message_delta", '{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": NaN}}'),
                                  ("message_stop", {})),
    "usage fractional": anthropic_events(START, TEXT_BLOCK, text_piece("hi"), (
        "message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2.5}}),
        ("message_stop", {})),
    "stop reason unknown": anthropic_events(START, TEXT_BLOCK, text_piece("hi"), (
        "content_block_stop", {"index": 0}), ("message_delta", {"delta": {"stop_reason": "??"}}),
        ("message_stop", {})),
    "event data not JSON": anthropic_events(START, ("content_block_delta", "{oops")),
    "event data a list": anthropic_events(START, ("content_block_delta", "[1]")),
    "lone surrogate in text": anthropic_events(START, TEXT_BLOCK, (
        "content_block_delta", '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "\\ud800"}}'),
        *STOP),
    "ends without message_stop": anthropic_events(START, TEXT_BLOCK, text_piece("hi")),
    "delta is a string": anthropic_events(START, TEXT_BLOCK, ("content_block_delta", {
        "index": 0, "delta": "text"}), *STOP),
}


def run_provider(api: str, handler: Callable[[Any], Any]) -> tuple[list[Any], Any]:
    import httpx

    from pi.ai.messages import UserMessage
    from pi.ai.model import Context, Model, StreamOptions
    from pi.ai.providers.anthropic_messages import AnthropicMessagesProvider
    from pi.ai.providers.http_exchange import RetryPolicy
    from pi.ai.providers.openai_completions import OpenAICompletionsProvider

    async def no_sleep(seconds: float) -> None:
        return None

    async def run() -> tuple[list[Any], Any]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            retry = RetryPolicy(max_retries=1, sleep=no_sleep)
            if api == "openai":
                provider: Any = OpenAICompletionsProvider(client, retry)
                model = Model(id="gpt-h", api="openai-completions", provider="openai",
                              base_url="https://openai.invalid/v1")
            else:
                provider = AnthropicMessagesProvider(client, retry)
                model = Model(id="claude-h", api="anthropic-messages", provider="anthropic",
                              base_url="https://anthropic.invalid")
            context = Context(messages=(UserMessage(content="hi", timestamp=0),))
            stream = provider.stream(model, context, StreamOptions(api_key=KEY, clock=lambda: 0))
            events = [event async for event in stream]
            return events, await stream.result()

    return asyncio.run(run())


def judge(check: Check, events: list[Any], message: Any) -> None:
    """One terminal event, last; a valid reply that reads back from a session file."""
    from pi.ai.events import dump_event
    terminal = [e for e in events if e.type in ("done", "error")]
    if len(terminal) != 1 or events[-1] is not terminal[0]:
        check.crash(f"{len(terminal)} terminal events; the last is {events[-1].type if events else None}")
    error = message.error_message or ""
    plain(check, "the error text", [error])
    if len(error) > 2000:
        check.crash(f"the error text is {len(error)} characters long")
    texts = [error, *(as_json(dump_event(e)) for e in events)]
    no_leak(check, "the reply", texts)
    written_reads_back(check, message)


def written_reads_back(check: Check, message: Any) -> None:
    """Append `message` to a new session file; it must read back exactly as JSON says."""
    from pi.ai.messages import dump_message
    from pi.coding_agent.session.entries import (
        CURRENT_VERSION,
        MessageEntry,
        SessionHeader,
        fixed_clock,
        sequential_ids,
    )
    from pi.coding_agent.session.reader import read_session
    from pi.coding_agent.session.writer import SessionWriter
    path = check.root / "reply.jsonl"
    header = SessionHeader(version=CURRENT_VERSION, id="h", timestamp="2026-01-01T00:00:00.000Z",
                           cwd="/w")
    writer = SessionWriter.create(path, header, ids=sequential_ids(), clock=fixed_clock(0))
    writer.append_message(message)
    writer.close()
    [entry] = read_session(path).entries
    want = json.loads(as_json(dump_message(message)))
    if not isinstance(entry, MessageEntry) or dump_message(entry.message) != want:
        check.lost("the reply written to a session file does not read back the same")


def stream_case(api: str, body: Body) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        import httpx
        data = body() if callable(body) else body
        response = lambda request: httpx.Response(  # noqa: E731
            200, headers={"content-type": "text/event-stream"}, content=data)
        judge(check, *run_provider(api, response))
    return run


def status_case(status: int, headers: dict[str, str], body: bytes) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        import httpx
        events, message = run_provider(
            "openai", lambda request: httpx.Response(status, headers=headers, content=body))
        judge(check, events, message)
        if message.stop_reason != "error":
            check.crash(f"HTTP {status} did not end as an error reply")
    return run


def cases() -> list[Case]:
    found = [Case("streams", f"openai: {name}", stream_case("openai", body))
             for name, body in OPENAI.items()]
    found += [Case("streams", f"openai: {name}", status_case(*spec)) for name, spec in STATUS.items()]
    found += [Case("streams", f"anthropic: {name}", stream_case("anthropic", body))
              for name, body in ANTHROPIC.items()]
    return found


__all__ = ["Path", "cases"]
