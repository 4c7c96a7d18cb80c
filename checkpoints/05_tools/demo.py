"""Step 05 demo: four tool calls, four outcomes, and every one of them a paired result."""

import asyncio

from pydantic import BaseModel

from pi.agent import AgentTool, ProgressCallback, ToolRegistry, ToolResult, run_tool_call
from pi.ai import AbortController, AbortSignal, ToolCall


class Division(BaseModel):
    numerator: float
    denominator: float


class Divide(AgentTool[Division]):
    name = "divide"
    description = "Divide one number by another."
    parameters = Division

    async def execute(self, call_id: str, params: Division, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        on_update(ToolResult.text("dividing…"))
        quotient = params.numerator / params.denominator  # raises on zero: becomes an error
        return ToolResult.text(f"{quotient:g}", details={"exact": quotient})


CALLS = [
    ToolCall(id="c1", name="divide", arguments={"numerator": 10, "denominator": 4}),
    ToolCall(id="c2", name="multiply", arguments={"a": 2, "b": 3}),
    ToolCall(id="c3", name="divide", arguments={"numerator": "ten"}),
    ToolCall(id="c4", name="divide", arguments={"numerator": 1, "denominator": 0}),
]


async def main() -> None:
    registry = ToolRegistry([Divide()])
    print("what the model sees:", registry.specs()[0].model_dump_json())
    for call in CALLS:
        updates: list[ToolResult] = []
        result = await run_tool_call(registry, call, AbortController().signal, updates.append,
                                     lambda: 0)
        status = "error" if result.is_error else "ok"
        print(f"\n{call.id} {call.name}{call.arguments} -> {result.tool_call_id} {status}"
              f" (progress updates: {len(updates)})")
        for line in result.content[0].text.splitlines():
            print(f"    {line}")


if __name__ == "__main__":
    asyncio.run(main())
