"""Step 03 demo: calls through the model boundary, including the ways a call can fail."""

import asyncio
import json

from mock_model import MockModel, fail, text, tool_call, turn
from pi.ai import (
    AbortController,
    Context,
    MockProvider,
    Model,
    Providers,
    StreamOptions,
    Tool,
    UserMessage,
)

MOCK = Model(id="mock-1", api="mock", provider="mock")
READ = Tool(name="read", description="Read a file from the workspace",
            parameters={"type": "object", "properties": {"path": {"type": "string"}},
                        "required": ["path"]})
CONTEXT = Context(system_prompt="You are a careful coding agent.",
                  messages=(UserMessage(content="What is in notes.md?", timestamp=0),),
                  tools=(READ,))


def describe(title: str, events: list[str], message) -> None:
    print(f"{title:<24} events={' '.join(events)}")
    detail = message.error_message or ", ".join(b.type for b in message.content)
    print(f"{'':<24} -> {message.stop_reason}: {detail}")


async def main() -> None:
    mock = MockModel([turn(text("Reading."), tool_call("read", {"path": "notes.md"})),
                      fail("rate_limit")])
    boundary = Providers({"mock": MockProvider(mock)})
    for title in ("a tool call", "a scripted rate limit", "the script runs out"):
        stream = boundary.stream(MOCK, CONTEXT)
        kinds = [e.type async for e in stream if not e.type.endswith("_delta")]
        describe(title, kinds, await stream.result())
    controller = AbortController()
    controller.abort()
    stream = boundary.stream(MOCK, CONTEXT, StreamOptions(signal=controller.signal))
    describe("aborted before sending", [e.type async for e in stream], await stream.result())
    print(f"\nrequests that reached the model: {len(mock.requests)}; the first one:")
    print(json.dumps(mock.requests[0], indent=2, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main())
