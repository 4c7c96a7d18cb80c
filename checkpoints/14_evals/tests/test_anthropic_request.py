"""A Context becomes the Anthropic Messages request the model can take."""

import asyncio
import json

import httpx

from mock_model import MockModel, text, turn
from mock_model.http import MockTransport
from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage, dump_message
from pi.ai.model import Context, Model, StreamOptions, Tool
from pi.ai.providers.anthropic_messages import (
    IMAGE_ONLY_RESULT,
    AnthropicMessagesProvider,
    wire_messages,
)
from pi.ai.providers.compat import IMAGE_OMITTED, NO_RESULT

STEP = 13
KEY = "sk-ant-test-0123456789abcdef"
CLAUDE = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic",
               base_url="http://mock", input=("text", "image"), max_tokens=64_000)
TEXT_ONLY = CLAUDE.model_copy(update={"input": ("text",)})
PNG = "iVBORw0KGgo="
IMAGE = ImageContent(data=PNG, mime_type="image/png")
messages_body = AnthropicMessagesProvider().body  # the request body, as the provider builds it
READ = Tool(name="read", description="Read a file", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def reply(*content, stop="toolUse", model="claude-sonnet-4-5", **extra) -> AssistantMessage:
    origin = {"api": "anthropic-messages", "provider": "anthropic", "model": model}
    if model != "claude-sonnet-4-5":
        origin = {"api": "openai-completions", "provider": "openai", "model": model}
    return AssistantMessage(content=content, usage=Usage.zero(), stop_reason=stop, timestamp=2,
                            **origin, **extra)


def result(call_id: str, *content, is_error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name="read", content=content,
                             is_error=is_error, timestamp=3)


def user(content) -> UserMessage:
    return UserMessage(content=content, timestamp=1)


CONTEXT = Context(
    system_prompt="You are a careful coding assistant.",
    messages=(
        user((TextContent(text="What is in this screenshot, and in notes.md?"), IMAGE)),
        reply(ThinkingContent(thinking="Two things to check.", thinking_signature="sig-1"),
              TextContent(text="Reading both."),
              ToolCall(id="toolu_1", name="read", arguments={"path": "notes.md"}),
              ToolCall(id="toolu_2", name="read", arguments={"path": "shot.png"})),
        result("toolu_1", TextContent(text="# Notes\n- ship step 13\n")),
        result("toolu_2", IMAGE),
        reply(TextContent(text="The notes s"), stop="error", error_message="HTTP 529: busy"),
        reply(ThinkingContent(thinking="Another model's reasoning.", thinking_signature="rc"),
              ToolCall(id="call|7", name="read", arguments={"path": "missing.md"}),
              model="gpt-4.1-mini"),
        result("call|7", TextContent(text="no such file"), is_error=True),
        user("Never mind the rest, just summarise."),
    ),
    tools=(READ,),
)
OPTIONS = StreamOptions(max_tokens=1024, temperature=0.2)


def pretty(body: dict) -> str:
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def test_the_request_body_for_a_context_with_images_tools_and_a_failed_reply(
        text_snapshot) -> None:
    text_snapshot(pretty(messages_body(CLAUDE, CONTEXT, OPTIONS)), "body.json")


def test_consecutive_tool_results_travel_in_one_user_message() -> None:
    wire = wire_messages(CONTEXT.messages, CLAUDE)
    assert [m["role"] for m in wire] == ["user", "assistant", "user", "assistant", "user", "user"]
    merged = wire[2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in merged] == [
        ("tool_result", "toolu_1"), ("tool_result", "toolu_2")]
    assert merged[0]["content"] == "# Notes\n- ship step 13\n"  # text only: one string
    assert [b["type"] for b in merged[1]["content"]] == ["text", "image"]
    assert merged[1]["content"][0]["text"] == IMAGE_ONLY_RESULT


def test_own_signed_thinking_goes_back_signed_and_another_models_becomes_text() -> None:
    wire = wire_messages(CONTEXT.messages, CLAUDE)
    assert wire[1]["content"][0] == {"type": "thinking", "thinking": "Two things to check.",
                                     "signature": "sig-1"}
    assert wire[3]["content"][0] == {"type": "text", "text": "Another model's reasoning."}


def test_own_thinking_without_signature_is_text_and_redacted_thinking_keeps_its_data() -> None:
    cut = reply(ThinkingContent(thinking="Cut before the signature."),
                ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
                ThinkingContent(thinking="  "), TextContent(text="Done."), stop="stop")
    (wire,) = wire_messages((cut,), CLAUDE)
    assert wire["content"] == [
        {"type": "text", "text": "Cut before the signature."},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Done."}]


def test_tool_ids_from_other_providers_are_made_to_fit_for_call_and_result_alike() -> None:
    wire = wire_messages(CONTEXT.messages, CLAUDE)
    assert wire[3]["content"][1]["id"] == "call_7"
    assert wire[4]["content"][0] == {"type": "tool_result", "tool_use_id": "call_7",
                                     "content": "no such file", "is_error": True}


def test_a_model_without_image_input_gets_placeholders_and_a_lone_call_a_result() -> None:
    call = ToolCall(id="toolu_9", name="bash", arguments={"command": "ls"})
    messages = (user((TextContent(text="Look"), IMAGE)), reply(call))
    wire = wire_messages(messages, TEXT_ONLY)
    assert wire[0]["content"][1] == {"type": "text", "text": IMAGE_OMITTED}
    assert wire[2] == {"role": "user", "content": [{"type": "tool_result",
                       "tool_use_id": "toolu_9", "content": NO_RESULT, "is_error": True}]}


def test_max_tokens_is_always_sent_from_the_options_or_else_the_model() -> None:
    hello = Context(messages=(user("Hi"),))
    assert messages_body(CLAUDE, hello, OPTIONS)["max_tokens"] == 1024
    body = messages_body(CLAUDE, hello, StreamOptions())
    assert body["max_tokens"] == 64_000 and "system" not in body and "tools" not in body
    assert body["stream"] is True and "temperature" not in body


def test_empty_user_text_is_left_out_and_the_transcript_is_untouched() -> None:
    before = [dump_message(message) for message in CONTEXT.messages]
    assert wire_messages((user("  "), user((TextContent(text=""),))), CLAUDE) == []
    messages_body(TEXT_ONLY, CONTEXT, OPTIONS)
    assert [dump_message(message) for message in CONTEXT.messages] == before


def test_the_key_goes_only_into_x_api_key_and_the_mock_reads_the_body_back() -> None:
    mock = MockModel([turn(text("Summary."))])
    seen: list[httpx.Request] = []

    async def run() -> AssistantMessage:
        transport = MockTransport(mock)

        async def spy(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return await transport.handle_async_request(request)

        async with httpx.AsyncClient(transport=httpx.MockTransport(spy)) as client:
            stream = AnthropicMessagesProvider(client).stream(
                CLAUDE, CONTEXT, StreamOptions(api_key=KEY, max_tokens=1024))
            return await stream.result()

    assert asyncio.run(run()).stop_reason == "stop"
    (request,) = seen
    assert (request.method, str(request.url)) == ("POST", "http://mock/v1/messages")
    assert request.headers["x-api-key"] == KEY and "authorization" not in request.headers
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert KEY not in request.content.decode()
    canonical = mock.requests[0]
    assert canonical["systemPrompt"] == CONTEXT.system_prompt
    assert [m["role"] for m in canonical["messages"]] == [
        "user", "assistant", "toolResult", "toolResult", "assistant", "toolResult", "user"]
    assert canonical["messages"][1]["content"][0]["thinkingSignature"] == "sig-1"
    assert canonical["tools"][0]["parameters"] == READ.parameters


def test_system_messages_in_the_transcript_become_the_system_field_and_the_tools() -> None:
    from pi.ai.messages import SystemMessage
    from pi.ai.transcript import initial_system_message

    first = initial_system_message(CONTEXT.system_prompt, CONTEXT.tools)
    moved = Context(messages=(first, *CONTEXT.messages))
    assert messages_body(CLAUDE, moved, OPTIONS) == messages_body(CLAUDE, CONTEXT, OPTIONS)
    later = SystemMessage(content="Later.", tools_removed=[{"name": t.name} for t in CONTEXT.tools],
                          timestamp=0)
    body = messages_body(CLAUDE, Context(messages=(*moved.messages, later)), OPTIONS)
    assert body["system"] == f"{CONTEXT.system_prompt}\n\nLater." and "tools" not in body
