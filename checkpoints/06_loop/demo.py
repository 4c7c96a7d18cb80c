"""Step 06 demo: the agent loop on a scripted model, with every event it reports."""

import asyncio

from pydantic import BaseModel

from mock_model import MockModel, text, tool_call, turn
from pi.agent import AgentTool, LoopConfig, ProgressCallback, ToolRegistry, ToolResult, run_loop
from pi.ai import AbortController, AbortSignal, MockProvider, Model, Providers, UserMessage

SIZES = {"small.txt": 1, "big.txt": 6}


class Path(BaseModel):
    path: str


class Measure(AgentTool[Path]):
    name = "measure"
    description = "Count the lines of a file (slowly, for big files)."
    parameters = Path

    async def execute(self, call_id: str, params: Path, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        for _ in range(SIZES[params.path]):  # yield to the event loop: big files finish last
            await asyncio.sleep(0)
        print(f"    (measure {params.path} finished)")
        return ToolResult.text(f"{params.path}: {SIZES[params.path] * 100} lines")


SCRIPT = [
    turn(text("Measuring both."), tool_call("measure", {"path": "big.txt"}),
         tool_call("measure", {"path": "small.txt"})),
    turn(text("big.txt has 600 lines, small.txt has 100.")),
]


def show(event: object) -> None:
    kind = getattr(event, "type", "")
    if kind == "message_update":
        return
    message = getattr(event, "message", None)
    detail = getattr(message, "role", "") or getattr(event, "tool_call_id", "")
    print(f"  {kind:<22}{detail}")


async def main() -> None:
    mock = MockModel(SCRIPT)
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry([Measure()]))
    prompt = UserMessage(content="How long are big.txt and small.txt?", timestamp=0)
    print("events (message_update left out):")
    result = await run_loop([prompt], [], config, show, AbortController().signal)
    print("\ntranscript:")
    for message in result.messages:
        ident = getattr(message, "tool_call_id", "")
        print(f"  {message.role:<11}{ident}")
    print(f"\nmodel requests: {len(mock.requests)}; error: {result.error}")


if __name__ == "__main__":
    asyncio.run(main())
