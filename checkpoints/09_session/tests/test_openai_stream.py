"""An OpenAI SSE byte stream becomes exactly the canonical reply, whatever goes wrong."""

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from course.wire import decode_sse_bytes
from mock_model.validate import schema_errors
from pi.ai.abort import AbortController
from pi.ai.events import dump_event
from pi.ai.messages import AssistantMessage, UserMessage
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.openai_completions import OpenAICompletionsProvider
from pi.ai.providers.reply_blocks import parse_partial_json

STEP = 4
KEY = "sk-test-0123456789abcdef"
GPT = Model(id="gpt-4.1-mini", api="openai-completions", provider="openai",
            base_url="https://api.openai.test/v1")
HELLO = Context(messages=(UserMessage(content="Hi", timestamp=0),))
OPTIONS = StreamOptions(api_key=KEY, clock=lambda: 1767225600000)


def sse(*chunks: object, done: bool = True) -> bytes:
    """An SSE body as OpenAI writes it: one `data:` line per chunk, a blank line after each."""
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    return "".join(lines + (["data: [DONE]\n\n"] if done else [])).encode()


def delta(finish: str | None = None, **fields: object) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def event_stream(body: object, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers={"content-type": "text/event-stream", **headers},
                          content=body)


def call(handler, options: StreamOptions = OPTIONS) -> tuple[list, AssistantMessage]:
    """Every event and the final message of one call against `handler` (no network)."""

    async def run() -> tuple[list, AssistantMessage]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            stream = OpenAICompletionsProvider(client).stream(GPT, HELLO, options)
            return [event async for event in stream], await stream.result()

    return asyncio.run(run())


def replay(body: bytes) -> tuple[list, AssistantMessage]:
    return call(lambda request: event_stream(body))


def recorded(data_dir: Path, name: str) -> bytes:
    return (data_dir / "wire" / name).read_bytes()


def test_a_recorded_tool_call_stream_becomes_text_then_two_complete_calls(data_dir) -> None:
    events, message = replay(recorded(data_dir, "openai-tool-call.sse"))
    assert message.stop_reason == "toolUse" and events[-1].type == "done"
    text, first, second = message.content
    assert text.text == "I'll read both files first — notes.md and todo.md."
    assert (first.id, first.name, first.arguments) == (
        "call_Qm3vX8pK2sLd7aFj9TnB4wEy", "read", {"path": "notes.md"})
    assert (second.name, second.arguments) == ("read", {"path": "todo.md", "limit": 50})
    usage = message.usage  # input excludes the 1152 cached prompt tokens OpenAI counts inside it
    assert (usage.input, usage.cache_read, usage.output, usage.total_tokens) == (
        168, 1152, 61, 1381)
    assert message.response_id == "chatcmpl-CJ4qXh0rTtN2bW8yVx3kLmP9sQa7E"
    assert (message.api, message.provider, message.model) == ("openai-completions", "openai",
                                                              "gpt-4.1-mini")
    assert message.timestamp == 1767225600000


def test_a_recorded_text_stream_stops_with_its_exact_text_and_usage(data_dir) -> None:
    _, message = replay(recorded(data_dir, "openai-text.sse"))
    assert message.stop_reason == "stop" and message.error_message is None
    assert [block.text for block in message.content] == ["Two plus two is 4 — no tools needed."]
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (412, 11, 423)


def test_a_stream_cut_mid_chunk_is_an_error_keeping_the_text_before_the_cut(data_dir) -> None:
    events, message = replay(recorded(data_dir, "openai-truncated.sse"))
    assert [e.type for e in events if e.type in ("done", "error")] == ["error"]
    assert message.stop_reason == "error"
    assert message.error_message == "stream ended without a finish reason"
    assert message.content[0].text == "The file starts with"


@pytest.mark.parametrize("name", ["openai-tool-call.sse", "openai-text.sse",
                                  "openai-truncated.sse"])
@pytest.mark.parametrize("size", [1, 7])
def test_where_the_network_cuts_the_bytes_makes_no_difference(data_dir, name, size) -> None:
    data = recorded(data_dir, name)
    whole = asyncio.run(decode_sse_bytes(data))
    assert asyncio.run(decode_sse_bytes(data, piece_size=size)) == whole


def test_every_event_is_valid_protocol_and_deltas_join_to_each_block(data_dir) -> None:
    events, message = replay(recorded(data_dir, "openai-tool-call.sse"))
    for event in events:
        assert schema_errors(dump_event(event)) == [], event.type
    kinds = [e.type for e in events if not e.type.endswith("_delta")]
    assert kinds == ["start", "text_start", "text_end", "toolcall_start", "toolcall_end",
                     "toolcall_start", "toolcall_end", "done"]
    assert "".join(e.delta for e in events if e.type == "text_delta") == message.content[0].text
    for index in (1, 2):
        joined = "".join(e.delta for e in events
                         if e.type == "toolcall_delta" and e.content_index == index)
        assert json.loads(joined) == message.content[index].arguments


def test_while_a_call_streams_its_partial_arguments_are_a_best_effort_preview(data_dir) -> None:
    events, _ = replay(recorded(data_dir, "openai-tool-call.sse"))
    previews = [e.partial.content[1].arguments for e in events
                if e.type == "toolcall_delta" and e.content_index == 1]
    assert previews == [{}, {}, {"path": ""}, {"path": "notes"}, {"path": "notes.md"},
                        {"path": "notes.md"}]


@pytest.mark.parametrize(("text", "preview"), [
    ("", {}), ('{"path": "src/ma', {"path": "src/ma"}), ('{"a": 1, "b": tr', {"a": 1}),
    ('{"a": [1, 2', {"a": [1, 2]}), ('{"a": {"b": "c\\', {"a": {"b": "c"}}), ("[1, 2]", {}),
])
def test_partial_json_reads_as_much_as_it_can_and_never_raises(text, preview) -> None:
    assert parse_partial_json(text) == preview


def test_reasoning_content_becomes_a_thinking_block_before_the_text() -> None:
    body = sse(delta(reasoning_content="Check"), delta(reasoning_content=" first."),
               delta(content="Done."), delta(finish="stop"))
    events, message = replay(body)
    thinking, text = message.content
    assert (thinking.thinking, thinking.thinking_signature, text.text) == (
        "Check first.", "reasoning_content", "Done.")
    assert [e.content for e in events if e.type == "thinking_end"] == ["Check first."]


def test_two_calls_in_one_chunk_are_told_apart_by_index() -> None:
    calls = [{"index": i, "id": f"call_{i}", "type": "function",
              "function": {"name": "ls", "arguments": json.dumps({"path": p})}}
             for i, p in enumerate(["a", "b"])]
    _, message = replay(sse(delta(tool_calls=calls), delta(finish="tool_calls")))
    assert [(b.id, b.arguments) for b in message.content] == [
        ("call_0", {"path": "a"}), ("call_1", {"path": "b"})]


def test_reasoning_under_its_short_name_is_a_thinking_block_that_remembers_the_field() -> None:
    _, message = replay(sse(delta(reasoning="Hmm."), delta(content="Yes."), delta(finish="stop")))
    thinking, text = message.content
    assert (thinking.thinking, thinking.thinking_signature, text.text) == (
        "Hmm.", "reasoning", "Yes.")


def test_start_and_end_events_carry_the_index_of_their_block() -> None:
    piece = {"index": 0, "id": "c1", "function": {"name": "ls", "arguments": "{}"}}
    events, _ = replay(sse(delta(content="Look."), delta(tool_calls=[piece]),
                           delta(finish="tool_calls")))
    indexed = [(e.type, e.content_index) for e in events if e.type.endswith(("_start", "_end"))]
    assert indexed == [("text_start", 0), ("text_end", 0), ("toolcall_start", 1),
                       ("toolcall_end", 1)]


def test_tool_call_pieces_without_an_index_continue_the_call_they_belong_to() -> None:
    first = {"index": 0, "id": "c1", "function": {"name": "ls", "arguments": '{"pa'}}
    rest = [{"function": {"arguments": 'th": '}}, {"function": {"arguments": '"src"}'}}]
    _, message = replay(sse(delta(tool_calls=[first]), *(delta(tool_calls=[r]) for r in rest),
                            delta(finish="tool_calls")))
    assert [(b.id, b.name, b.arguments) for b in message.content] == [
        ("c1", "ls", {"path": "src"})]


def test_a_call_has_an_empty_name_until_its_name_arrives() -> None:
    unnamed = {"index": 0, "id": "c1", "function": {"arguments": ""}}
    named = {"index": 0, "function": {"name": "ls", "arguments": "{}"}}
    events, message = replay(sse(delta(tool_calls=[unnamed]), delta(tool_calls=[named]),
                                 delta(finish="tool_calls")))
    start = next(e for e in events if e.type == "toolcall_start")
    assert start.partial.content[0].name == "" and message.content[0].name == "ls"


def test_the_reply_keeps_the_first_response_id_it_was_sent() -> None:
    anonymous = {"choices": [{"index": 0, "delta": {"content": "A"}, "finish_reason": None}]}
    later = {**delta(content="B"), "id": "chatcmpl-later"}
    _, message = replay(sse(anonymous, delta(content="C"), later, delta(finish="stop")))
    assert message.response_id == "chatcmpl-1" and message.content[0].text == "ACB"


def test_an_unknown_finish_reason_is_an_error_not_a_guess() -> None:
    _, message = replay(sse(delta(content="Partial an"), delta(finish="content_filter")))
    assert message.stop_reason == "error" and "content_filter" in message.error_message
    assert message.content[0].text == "Partial an"


@pytest.mark.parametrize("finish, stop", [("stop", "stop"), ("length", "length"),
                                          ("tool_calls", "toolUse"), ("function_call", "toolUse")])
def test_each_known_finish_reason_becomes_its_stop_reason(finish: str, stop: str) -> None:
    events, message = replay(sse(delta(content="Hi"), delta(finish=finish)))
    assert message.stop_reason == stop and events[-1].type == "done"


def test_usage_without_cached_token_details_reads_no_cache() -> None:
    usage = {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}
    _, message = replay(sse(delta(content="Hi"), delta(finish="stop"), usage))
    assert (message.usage.input, message.usage.cache_read, message.usage.output,
            message.usage.total_tokens) == (7, 0, 2, 9)


def test_a_stream_without_a_finish_reason_is_an_error_keeping_the_partial_text() -> None:
    _, message = replay(sse(delta(content="Hello"), delta(content=" wor")))
    assert message.stop_reason == "error"
    assert message.error_message == "stream ended without a finish reason"
    assert message.content[0].text == "Hello wor"


def test_arguments_that_are_not_json_end_the_reply_as_an_error_naming_the_call() -> None:
    start = {"index": 0, "id": "call_9", "type": "function",
             "function": {"name": "write", "arguments": '{"path": '}}
    events, message = replay(sse(delta(tool_calls=[start]), delta(finish="tool_calls")))
    assert message.stop_reason == "error" and "write (call_9)" in message.error_message
    assert message.content[0].arguments == {}
    assert [e.type for e in events][-2:] == ["toolcall_end", "error"]


def test_an_error_chunk_in_the_stream_ends_as_an_error_keeping_the_text() -> None:
    body = sse(delta(content="So far"), {"error": {"message": "server overloaded"}})
    _, message = replay(body)
    assert message.stop_reason == "error" and "server overloaded" in message.error_message
    assert message.content[0].text == "So far"


def test_an_abort_mid_stream_ends_aborted_keeping_the_partial_text() -> None:
    controller = AbortController()

    async def stalls():
        yield sse(delta(content="Half a sen"), done=False)
        await asyncio.Event().wait()  # the server goes quiet; only the abort can end this

    async def run() -> tuple[list, AssistantMessage]:
        transport = httpx.MockTransport(lambda request: event_stream(stalls()))
        async with httpx.AsyncClient(transport=transport) as client:
            options = StreamOptions(signal=controller.signal)
            stream = OpenAICompletionsProvider(client).stream(GPT, HELLO, options)
            events = []
            async for event in stream:
                events.append(event)
                if event.type == "text_delta":
                    controller.abort()
            return events, await stream.result()

    events, message = asyncio.run(run())
    assert events[-1].type == "error" and message.stop_reason == "aborted"
    assert message.content[0].text == "Half a sen"


def test_an_http_error_is_a_reply_with_status_and_provider_text_key_redacted() -> None:
    body = {"error": {"message": f"Rate limit reached for key {KEY}.", "type": "requests",
                      "param": None, "code": "rate_limit_exceeded"}}
    events, message = call(lambda request: httpx.Response(429, json=body))
    assert [e.type for e in events] == ["error"] and message.stop_reason == "error"
    assert message.error_message == "HTTP 429: Rate limit reached for key ***."


def test_a_connection_error_is_a_reply_with_the_key_redacted() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"cannot reach {request.url} with {KEY}")

    _, message = call(refuse)
    assert message.stop_reason == "error" and KEY not in message.error_message
    assert message.error_message.startswith("connection error: ConnectError: cannot reach")


def test_a_success_status_that_is_not_an_event_stream_is_an_error_reply() -> None:
    _, message = call(lambda request: httpx.Response(200, json={"choices": []}))
    assert message.stop_reason == "error" and "text/event-stream" in message.error_message


def long_call(size: int, piece: int = 10) -> tuple[str, bytes]:
    arguments = json.dumps({"path": "big.txt", "content": "x" * size})
    first = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "write", "arguments": ""}}
    pieces = [delta(tool_calls=[{"index": 0, "function": {"arguments": arguments[i:i + piece]}}])
              for i in range(0, len(arguments), piece)]
    return arguments, sse(delta(tool_calls=[first]), *pieces, delta(finish="tool_calls"))


def test_a_long_calls_preview_keeps_growing_but_is_not_reread_for_every_piece() -> None:
    arguments, body = long_call(20_000)
    events, message = replay(body)
    deltas = [e for e in events if e.type == "toolcall_delta"]
    previews = [len(e.partial.content[0].arguments.get("content", "")) for e in deltas]
    assert previews == sorted(previews) and previews[-1] >= 0.8 * 20_000, "it grows to the end"
    rebuilt = len({id(e.partial.content[0]) for e in deltas})
    assert 10 < rebuilt < len(deltas) / 10, f"{rebuilt} previews for {len(deltas)} pieces"
    end = next(e for e in events if e.type == "toolcall_end")
    assert end.partial.content[0].arguments == end.tool_call.arguments == json.loads(arguments)
    assert message.content[0].arguments == json.loads(arguments)


def test_a_long_text_is_shown_whole_at_its_end_and_never_ahead_of_its_deltas() -> None:
    text = "".join(f"word{n} " for n in range(3_000))
    events, message = replay(sse(*[delta(content=text[i:i + 7]) for i in range(0, len(text), 7)],
                                 delta(finish="stop")))
    so_far = ""
    for event in events:
        if event.type == "text_delta":
            so_far += event.delta
            shown = event.partial.content[0].text
            assert so_far.startswith(shown) and len(shown) >= 0.8 * len(so_far)
    assert next(e for e in events if e.type == "text_end").partial.content[0].text == text
    assert message.content[0].text == text


def test_a_long_text_cut_short_by_an_error_keeps_every_piece_that_arrived() -> None:
    text = "".join(f"word{n} " for n in range(2_000))
    pieces = [delta(content=text[i:i + 7]) for i in range(0, len(text), 7)]
    _, message = replay(sse(*pieces, {"error": {"message": "server overloaded"}}))
    assert message.stop_reason == "error" and "server overloaded" in message.error_message
    assert message.content[0].text == text


def test_interleaved_tool_calls_are_reassembled_strictly_by_index() -> None:
    def piece(index: int, arguments: str, name: str | None = None) -> dict:
        call: dict = {"index": index, "function": {"arguments": arguments}}
        if name:
            call |= {"id": f"call_{index}", "type": "function"}
            call["function"]["name"] = name
        return delta(tool_calls=[call])

    body = sse(piece(0, '{"path": ', "read"), piece(1, '{"pattern": ', "grep"),
               piece(0, '"a.txt"}'), piece(1, '"TODO"}'), delta(finish="tool_calls"))
    events, message = replay(body)
    assert message.stop_reason == "toolUse"
    assert [(b.id, b.name, b.arguments) for b in message.content] == [
        ("call_0", "read", {"path": "a.txt"}), ("call_1", "grep", {"pattern": "TODO"})]
    for index in (0, 1):
        joined = "".join(e.delta for e in events
                         if e.type == "toolcall_delta" and e.content_index == index)
        assert json.loads(joined) == message.content[index].arguments


def test_a_key_in_repr_form_or_cut_in_half_never_reaches_the_error_text() -> None:
    from pi.ai.redact import clip, redact
    key = "sk-live-ABCDEFGH12345678\r"
    echoed = [f"Illegal header value b'Bearer {key}'".replace("\r", "\\r"),
              json.dumps({"sent": key}), clip("x" * 90 + key, 100), key[10:] + " was refused"]
    for text in echoed:
        assert "ABCD" not in redact(text, [key]) and "5678" not in redact(text, [key]), text


def test_an_error_body_is_redacted_before_it_is_cut() -> None:
    body = "x" * 490 + KEY  # the cut at 500 characters falls inside the key
    _, message = call(lambda request: httpx.Response(500, text=body))
    assert message.stop_reason == "error" and KEY[:6] not in message.error_message


def test_a_key_with_a_trailing_newline_is_trimmed_before_it_goes_into_the_header() -> None:
    sent: list[str] = []

    def echo(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers["authorization"])
        return httpx.Response(401, json={"error": {"message": f"bad key {sent[0]}"}})

    _, message = call(echo, StreamOptions(api_key=KEY + "\r\n", clock=lambda: 0))
    assert sent == [f"Bearer {KEY}"] and KEY not in message.error_message


def test_a_key_with_whitespace_inside_is_refused_without_showing_it() -> None:
    _, message = call(lambda request: httpx.Response(200),
                      StreamOptions(api_key="sk-abc def-0123456789", clock=lambda: 0))
    assert message.stop_reason == "error" and "whitespace" in message.error_message
    assert "0123456789" not in message.error_message


def test_unexpected_data_in_a_chunk_is_an_error_without_python_internals() -> None:
    _, message = replay(sse({"choices": "not a list"}))
    assert message.stop_reason == "error"
    assert "object has no attribute" not in message.error_message
    assert "cannot read" in message.error_message


@pytest.mark.parametrize("count", [float("nan"), 12.5, 1e400, -3, "12", None, True])
def test_a_token_count_that_is_no_whole_number_is_stored_as_one(count) -> None:
    from pi.ai.providers.openai_wire import token_count
    body = sse(delta(content="Hi"), delta(finish="stop"), done=False).decode()
    usage = json.dumps({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 1}})
    usage = usage.replace('"completion_tokens": 1', f'"completion_tokens": {json.dumps(count)}')
    _, message = replay((body + f"data: {usage}\n\ndata: [DONE]\n\n").encode())
    output = message.usage.output
    assert isinstance(output, int) and output == token_count(count) and output >= 0
    again = AssistantMessage.model_validate(json.loads(message.model_dump_json(by_alias=True)))
    assert again.usage == message.usage


def test_a_token_count_is_rounded_and_anything_but_a_finite_number_counts_zero() -> None:
    from pi.ai.providers.openai_wire import token_count
    counts = (7, 12.4, float("nan"), 1e400, -3, "12", None, True)
    assert [token_count(count) for count in counts] == [7, 12, 0, 0, 0, 0, 0, 0]


def counted_content_builds(monkeypatch, body: bytes) -> int:
    """How many times the reply's blocks were looked at to build the partial messages."""
    from pi.ai.providers import reply_blocks

    seen = [0]
    content = reply_blocks.Block.content

    def counting(self, exact: bool = True):
        seen[0] += 1
        return content(self, exact)

    monkeypatch.setattr(reply_blocks.Block, "content", counting)
    replay(body)
    return seen[0]


def many_blocks(count: int) -> bytes:
    """Text and reasoning in turn: every piece starts a block of its own."""
    pieces = [delta(content="ab") if n % 2 else delta(reasoning_content="cd")
              for n in range(count)]
    return sse(*pieces, delta(finish="stop"))


def many_open_calls(count: int) -> bytes:
    """`count` calls begun before any of them is finished, then finished in turn."""
    starts = [delta(tool_calls=[{"index": n, "id": f"c{n}", "type": "function",
                                 "function": {"name": "ls", "arguments": '{"path": '}}])
              for n in range(count)]
    ends = [delta(tool_calls=[{"index": n, "function": {"arguments": '"."}'}}])
            for n in range(count)]
    return sse(*starts, *ends, delta(finish="tool_calls"))


@pytest.mark.parametrize("stream", [many_blocks, many_open_calls])
def test_assembling_a_reply_costs_work_linear_in_its_pieces_however_it_is_split(
        monkeypatch, stream) -> None:
    small = counted_content_builds(monkeypatch, stream(100))
    large = counted_content_builds(monkeypatch, stream(1_000))
    assert large <= 12 * small, f"10x the pieces cost {large / small:.1f}x the block builds"


def test_a_lone_surrogate_in_a_reply_is_printed_and_written_as_its_escape() -> None:
    from pi.ai.messages import dump_message, json_text

    halves = sse(delta(content="a\ud800b x\ud83d"), delta(content="\ude00y"), delta(finish="stop"))
    _, message = replay(halves)
    assert message.content[0].text == "a\ud800b x😀y", "halves sent apart are one character"
    for text in (json_text(dump_message(message)), json_text(dump_message(message), indent=2,
                                                           sort_keys=True)):
        text.encode("utf-8")  # would raise on a raw lone surrogate
        assert "\\ud800" in text and json.loads(text)["content"][0]["text"] == "a\ud800b x😀y"


@pytest.mark.parametrize("pieces, problem", [
    ([{"index": 0, "id": "a", "function": {"name": "ls", "arguments": '{"path": '}},
      {"index": 0, "id": "b", "function": {"arguments": '"."}'}}], "says b"),
    ([{"index": 0, "id": "a", "function": {"name": "ls", "arguments": '{"path": '}},
      {"index": 1, "id": "b", "function": {"name": "ls", "arguments": '{"path": '}},
      {"function": {"arguments": '"."}'}}], "without an index while several calls are open"),
    ([{"index": "0", "id": "a", "function": {"name": "ls", "arguments": "{}"}}],
     'index "0", not a whole number'),
    ([{"index": 0, "id": "a", "function": {"name": "ls", "arguments": '{"path": "a"'}},
      {"index": 1, "id": "b", "function": {"name": "ls", "arguments": "{}"}},
      {"index": 0, "function": {"arguments": '"}'}}], "not valid JSON"),
])
def test_a_tool_call_stream_that_cannot_be_put_back_together_is_an_error_reply(
        pieces, problem) -> None:
    _, message = replay(sse(*(delta(tool_calls=[p]) for p in pieces), delta(finish="tool_calls")))
    assert message.stop_reason == "error", "a reply made of pieces nobody can place"
    assert problem in message.error_message and "\n" not in message.error_message
