"""Step 04 demo: an OpenAI reply read from raw SSE bytes, the request we send, and retries.

No network and no server: an httpx.MockTransport answers every request from here.
"""

import asyncio
import json

import httpx

from course.wire import summary_lines
from pi.ai import (
    AssistantMessage,
    Context,
    Model,
    OpenAICompletionsProvider,
    RetryPolicy,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

GPT = Model(id="gpt-4.1-mini", api="openai-completions", provider="openai",
            base_url="https://api.openai.test/v1")
NEW_YEAR_MS = 1767225600000  # 2026-01-01 00:00:00 UTC, the fake clock
READ = Tool(name="read", description="Read a file",
            parameters={"type": "object", "properties": {"path": {"type": "string"}}})
ASK = Context(system_prompt="You are a careful coding assistant.",
              messages=(UserMessage(content="What is in notes.md?", timestamp=0),), tools=(READ,))


def chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": None}


def call_piece(arguments: str, name: str | None = None) -> dict:
    """A piece of tool call 0; the first piece carries its id and name."""
    piece: dict = {"index": 0, "function": {"arguments": arguments}}
    if name is not None:
        piece |= {"id": "call_1", "type": "function", "function": {"name": name, "arguments": ""}}
    return chunk({"tool_calls": [piece]})


USAGE = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "choices": [], "usage": {
    "prompt_tokens": 1200, "completion_tokens": 19, "total_tokens": 1219,
    "prompt_tokens_details": {"cached_tokens": 1024}}}
CHUNKS = [chunk({"role": "assistant", "content": "Reading"}), chunk({"content": " the notes."}),
          call_piece("", name="read"), call_piece('{"pa'),
          call_piece('th": "no'), call_piece('tes.md"}'), chunk({}, "tool_calls"), USAGE]
SSE = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in CHUNKS)
SSE += "data: [DONE]\n\n"  # OpenAI's last line: not JSON, just the end marker


def sse_response(text: str, piece: int = 9) -> httpx.Response:
    """A 200 streaming `text` in pieces of `piece` bytes, cut wherever they fall."""

    async def pieces():
        data = text.encode()
        for start in range(0, len(data), piece):
            yield data[start : start + piece]

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=pieces())


def client(answer) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


def describe(event) -> str:
    """What an event adds: a delta (with the arguments readable so far), a call, a reason."""
    if event.type == "toolcall_delta":
        preview = json.dumps(event.partial.content[event.content_index].arguments)
        return f"{json.dumps(event.delta):<14} arguments so far: {preview}"
    if event.type.endswith("_delta"):
        return json.dumps(event.delta)
    if event.type == "toolcall_end":
        return f"{event.tool_call.name} {json.dumps(event.tool_call.arguments)}"
    return getattr(event, "reason", "")


async def events_from_bytes() -> None:
    print("--- the first two of", len(CHUNKS) + 1, "SSE events on the wire (cut in 9-byte pieces)")
    print("".join(SSE.splitlines(keepends=True)[:4]), end="")
    print("--- the events the provider makes of them")
    async with client(lambda request: sse_response(SSE)) as http:
        stream = OpenAICompletionsProvider(http).stream(GPT, ASK, StreamOptions())
        async for event in stream:
            print(f"{event.type:<15} {describe(event)}".rstrip())
        print("--- the final message")
        print("\n".join(summary_lines(await stream.result())))


def outbound() -> None:
    call = ToolCall(id="call_1", name="read", arguments={"path": "notes.md"})
    earlier = AssistantMessage(content=(TextContent(text="Reading the notes."), call),
                               api=GPT.api, provider=GPT.provider, model=GPT.id,
                               usage=Usage.zero(), stop_reason="toolUse", timestamp=1)
    answer = ToolResultMessage(tool_call_id="call_1", tool_name="read", is_error=False,
                               content=(TextContent(text="- ship step 04\n"),), timestamp=2)
    context = ASK.model_copy(update={"messages": (*ASK.messages, earlier, answer)})
    body = OpenAICompletionsProvider().body(GPT, context, StreamOptions(max_tokens=512))
    print("\n--- the request body after one tool round (POST /chat/completions)")
    print(json.dumps(body, indent=2, sort_keys=True))


async def retries() -> None:
    print("\n--- retries: at most 3, backoff 0.5 s doubling, jitter 25% (random fixed at 0.5)")
    answers = [httpx.Response(503, text="overloaded"),
               httpx.Response(429, headers={"retry-after": "Thu, 01 Jan 2026 00:00:02 GMT"},
                              json={"error": {"message": "Rate limit reached"}}),
               sse_response(SSE),
               httpx.Response(429, headers={"retry-after": "120"}, text="Try again later")]
    sent: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        response = answers[len(sent)]
        sent.append(response.status_code)
        asked = response.headers.get("retry-after")
        print(f"request {len(sent)} -> HTTP {response.status_code}"
              + (f" (retry-after: {asked})" if asked else ""))
        return response

    async def sleep(seconds: float) -> None:
        print(f"            wait {seconds:g} s")

    policy = RetryPolicy(max_retries=3, random=lambda: 0.5, sleep=sleep)
    options = StreamOptions(clock=lambda: NEW_YEAR_MS)
    async with client(answer) as http:
        provider = OpenAICompletionsProvider(http, policy)
        for title in ("a call that needs two retries", "a call told to wait too long"):
            print(title)
            message = await provider.stream(GPT, ASK, options).result()
            print(f"  -> {message.stop_reason}: {message.error_message or 'reply streamed'}")


if __name__ == "__main__":
    asyncio.run(events_from_bytes())
    outbound()
    asyncio.run(retries())
