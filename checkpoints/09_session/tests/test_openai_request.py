"""A Context becomes the Chat Completions request the model can take, transcript intact."""

import asyncio
import json

import httpx

from pi.ai.content import ImageContent, TextContent, ThinkingContent, ToolCall
from pi.ai.messages import AssistantMessage, ToolResultMessage, Usage, UserMessage, dump_message
from pi.ai.model import Context, Model, StreamOptions, Tool
from pi.ai.providers.compat import IMAGE_OMITTED, NO_RESULT, compat_messages
from pi.ai.providers.openai_completions import OpenAICompletionsProvider

STEP = 4
KEY = "sk-test-0123456789abcdef"
VISION = Model(id="gpt-4.1-mini", api="openai-completions", provider="openai",
               base_url="https://api.openai.test/v1", input=("text", "image"))
TEXT_ONLY = VISION.model_copy(update={"input": ("text",)})
PNG = "iVBORw0KGgo="
chat_completions_body = OpenAICompletionsProvider().body  # the request body, as sent
READ = Tool(name="read", description="Read a file", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def reply(*content, stop="toolUse", model="gpt-4.1-mini", **extra) -> AssistantMessage:
    origin = {"api": "openai-completions", "provider": "openai", "model": model}
    if model != "gpt-4.1-mini":
        origin = {"api": "anthropic-messages", "provider": "anthropic", "model": model}
    return AssistantMessage(content=content, usage=Usage.zero(), stop_reason=stop, timestamp=2,
                            **origin, **extra)


def result(call_id: str, *content) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name="read", content=content,
                             is_error=False, timestamp=3)


def user(content) -> UserMessage:
    return UserMessage(content=content, timestamp=1)


IMAGE = ImageContent(data=PNG, mime_type="image/png")
CONTEXT = Context(
    system_prompt="You are a careful coding assistant.",
    messages=(
        user((TextContent(text="What is in this screenshot, and in notes.md?"), IMAGE)),
        reply(ThinkingContent(thinking="Two things to check.", thinking_signature="reasoning"),
              TextContent(text="Reading the notes."),
              ToolCall(id="call_1", name="read", arguments={"path": "notes.md"})),
        result("call_1", TextContent(text="# Notes\n- ship step 04\n")),
        reply(TextContent(text="The notes s"), stop="error", error_message="HTTP 500: boom"),
        reply(ThinkingContent(thinking="Another model's reasoning."),
              TextContent(text="Opening both files."),
              ToolCall(id="call_2", name="read", arguments={"path": "shot.png"}),
              ToolCall(id="call_3", name="read", arguments={"path": "todo.md"}),
              model="claude-sonnet-4-5"),
        result("call_2", IMAGE),
        user("Never mind the rest, just summarise."),
    ),
    tools=(READ,),
)
OPTIONS = StreamOptions(max_tokens=1024, temperature=0.2)


def pretty(body: dict) -> str:
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_request_body_for_a_model_that_sees_images(text_snapshot) -> None:
    text_snapshot(pretty(chat_completions_body(VISION, CONTEXT, OPTIONS)), "body.json")


def test_the_request_body_for_a_text_only_model(text_snapshot) -> None:
    text_snapshot(pretty(chat_completions_body(TEXT_ONLY, CONTEXT, OPTIONS)), "body.json")


def test_the_key_goes_only_into_the_authorization_header_of_a_post_to_chat_completions() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        chunk = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    async def run() -> AssistantMessage:
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            options = StreamOptions(api_key=KEY)
            return await OpenAICompletionsProvider(client).stream(VISION, CONTEXT, options).result()

    assert asyncio.run(run()).stop_reason == "stop"
    (request,) = seen
    assert (request.method, str(request.url)) == ("POST", "https://api.openai.test/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = json.loads(request.content)
    assert KEY not in request.content.decode()
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_compat_builds_new_messages_and_leaves_the_transcript_as_it_was() -> None:
    before = [dump_message(message) for message in CONTEXT.messages]
    compat_messages(CONTEXT.messages, TEXT_ONLY)
    chat_completions_body(TEXT_ONLY, CONTEXT, OPTIONS)
    assert [dump_message(message) for message in CONTEXT.messages] == before


def test_replies_that_ended_in_error_or_abort_are_not_sent() -> None:
    messages = (user("Hi"), reply(TextContent(text="Hal"), stop="aborted", error_message="x"),
                reply(TextContent(text="Oops"), stop="error", error_message="y"), user("Again"))
    assert [m.role for m in compat_messages(messages, VISION)] == ["user", "user"]


def test_a_call_without_a_result_gets_a_synthetic_error_result_even_at_the_end() -> None:
    call = ToolCall(id="call_7", name="bash", arguments={"command": "ls"})
    out = compat_messages((user("List files"), reply(call)), VISION)
    assert [m.role for m in out] == ["user", "assistant", "toolResult"]
    synthetic = out[-1]
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.is_error) == (
        "call_7", "bash", True)
    assert synthetic.content == (TextContent(text=NO_RESULT),)


def test_thinking_of_the_same_model_is_dropped_and_of_another_model_becomes_text() -> None:
    mine = reply(ThinkingContent(thinking="mine"), TextContent(text="A"), stop="stop")
    theirs = reply(ThinkingContent(thinking="theirs"), ThinkingContent(thinking="x", redacted=True),
                   TextContent(text="B"), stop="stop", model="claude-sonnet-4-5")
    only_thinking = reply(ThinkingContent(thinking="hmm"), stop="stop")
    out = compat_messages((mine, theirs, only_thinking), VISION)
    assert [[block.model_dump() for block in m.content] for m in out] == [
        [TextContent(text="A").model_dump()],
        [TextContent(text="theirs").model_dump(), TextContent(text="B").model_dump()],
    ]


def test_a_model_without_image_input_gets_a_placeholder_for_each_image() -> None:
    out = compat_messages((user((TextContent(text="Look"), IMAGE)), result("c", IMAGE)), TEXT_ONLY)
    assert out[0].content == (TextContent(text="Look"), TextContent(text=IMAGE_OMITTED))
    assert out[1].content == (TextContent(text=IMAGE_OMITTED),)
    assert compat_messages((user((IMAGE,)),), VISION)[0].content == (IMAGE,)


def test_images_from_tool_results_follow_the_tool_messages_in_one_user_message() -> None:
    roles = [m["role"] for m in chat_completions_body(VISION, CONTEXT, OPTIONS)["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "tool", "user",
                     "user"]


def test_a_reply_of_tool_calls_alone_is_sent_with_null_content() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "ü.txt"})
    context = Context(messages=(user("go"), reply(call), result("c1", TextContent(text="x"))),
                      tools=(READ,))
    body = chat_completions_body(VISION, context, StreamOptions())
    sent = body["messages"][-2]
    assert sent["content"] is None, "no text at all is null on this wire, not an empty string"
    assert sent["tool_calls"][0]["function"]["arguments"] == '{"path":"ü.txt"}'


def test_tool_call_arguments_are_sent_with_numbers_as_javascript_writes_them() -> None:
    call = ToolCall(id="c1", name="wait", arguments={"seconds": 1e-7, "times": 2.0, "of": 1e-5})
    context = Context(messages=(user("go"), reply(call), result("c1", TextContent(text="x"))))
    sent = chat_completions_body(VISION, context, StreamOptions())["messages"][-2]
    assert sent["tool_calls"][0]["function"]["arguments"] == (  # JSON.stringify's, as Pi sends
        '{"seconds":1e-7,"times":2,"of":0.00001}')


def test_a_leading_system_message_sends_the_same_body_as_system_prompt_and_tools() -> None:
    from pi.ai.transcript import initial_system_message

    first = initial_system_message(CONTEXT.system_prompt, CONTEXT.tools)
    moved = Context(messages=(first, *CONTEXT.messages))
    assert chat_completions_body(VISION, moved, OPTIONS) == chat_completions_body(
        VISION, CONTEXT, OPTIONS)


def test_a_request_without_tools_leaves_the_tools_field_out() -> None:
    body = chat_completions_body(VISION, Context(messages=(user("Hi"),)), OPTIONS)
    assert "tools" not in body and body["messages"] == [{"role": "user", "content": "Hi"}]
