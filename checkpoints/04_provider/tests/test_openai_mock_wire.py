"""Our OpenAI provider and the MockModel's OpenAI wire agree, end to end.

The provider was built against recorded bytes; the MockModel's HTTP face was built against
the official SDK. Here the two meet: the same script, through real HTTP encoding and parsing,
gives the same assistant message the MockModel would give in-process.
"""

import asyncio

import httpx

from mock_model import MockModel, fail, text, thinking, tool_call, turn
from mock_model.http import MockTransport, serve_in_thread
from pi.ai import (
    Context,
    Model,
    OpenAICompletionsProvider,
    Providers,
    StreamOptions,
    Tool,
    ToolCall,
    UserMessage,
)

STEP = 4
READ = Tool(name="read", description="Read a file", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def model(base_url: str) -> Model:
    return Model(id="mock-1", api="openai-completions", provider="mock-http", base_url=base_url)


def ask(client: httpx.AsyncClient, base_url: str, options: StreamOptions | None = None):
    provider = OpenAICompletionsProvider(client)
    context = Context(system_prompt="Be brief.", tools=(READ,),
                      messages=(UserMessage(content="What is in a.txt?", timestamp=0),))
    return Providers({"openai-completions": provider}).complete(model(base_url), context, options)


def test_a_scripted_tool_call_arrives_whole_through_the_openai_wire() -> None:
    mock = MockModel([turn(thinking("look first"), text("Reading."),
                           tool_call("read", {"path": "a.txt"}, id="call_a"))])

    async def run():
        async with httpx.AsyncClient(transport=MockTransport(mock)) as client:
            return await ask(client, "http://mock/v1", StreamOptions(api_key="sk-test"))

    message = asyncio.run(run())
    assert message.stop_reason == "toolUse", message.error_message
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [("call_a", "read", {"path": "a.txt"})]
    assert "Reading." in [getattr(b, "text", None) for b in message.content]
    assert message.usage.output > 0
    request = mock.requests[0]
    assert request["systemPrompt"] == "Be brief." and request["tools"][0]["name"] == "read"


def test_a_scripted_rate_limit_is_an_error_reply_with_the_status() -> None:
    mock = MockModel([fail("rate_limit")])

    async def run():
        async with httpx.AsyncClient(transport=MockTransport(mock)) as client:
            return await ask(client, "http://mock/v1", StreamOptions(api_key="sk-secret-key"))

    message = asyncio.run(run())
    assert message.stop_reason == "error" and "429" in (message.error_message or "")
    assert "sk-secret-key" not in (message.error_message or "")


def test_the_provider_talks_to_a_real_loopback_server() -> None:
    mock = MockModel([turn(text("Hello over a socket."))])
    url, stop = serve_in_thread(mock)
    try:
        async def run():
            async with httpx.AsyncClient(timeout=10) as client:
                return await ask(client, f"{url}/v1")

        message = asyncio.run(run())
    finally:
        stop()
    assert message.stop_reason == "stop"
    assert [b.text for b in message.content if b.type == "text"] == ["Hello over a socket."]
