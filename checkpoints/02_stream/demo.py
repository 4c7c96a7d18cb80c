"""Step 02 demo: one reply arriving as events, and a producer that crashes half way."""

import asyncio

from mock_model import MockModel, text, tool_call, turn
from pi.ai import AssistantMessageEventStream, dump_message, parse_event, produce
from pi.ai.messages import AssistantMessage, Usage

EMPTY = AssistantMessage(content=(), api="mock", provider="mock", model="mock-1",
                         usage=Usage.zero(), stop_reason="stop", timestamp=0)
REPLY = turn(text("Reading it now."), tool_call("read", {"path": "notes.md"}))


async def replay(out: AssistantMessageEventStream, crash_after: int | None = None) -> None:
    model = MockModel([REPLY])
    count = 0
    async for data in model.stream({"model": "mock-1", "messages": []}):
        if count == crash_after:
            raise ConnectionResetError("connection reset by peer")
        out.push(parse_event(data))
        count += 1


async def show(title: str, crash_after: int | None) -> None:
    print(f"--- {title}")
    stream = produce(lambda out: replay(out, crash_after), EMPTY)
    async for event in stream:
        delta = getattr(event, "delta", None)
        print(f"{event.type:<15}{'' if delta is None else repr(delta)}")
    final = dump_message(await stream.result())
    print(f"result: stopReason={final['stopReason']} blocks={len(final['content'])}"
          f" errorMessage={final.get('errorMessage')!r}\n")


async def main() -> None:
    await show("a complete reply", crash_after=None)
    await show("the producer crashes after 5 events", crash_after=5)


if __name__ == "__main__":
    asyncio.run(main())
