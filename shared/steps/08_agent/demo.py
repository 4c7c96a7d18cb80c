"""Step 08 demo: a stateful Agent, steered while its tools run, then stopped with an abort."""

import asyncio

from pydantic import BaseModel

from mock_model import MockModel, text, tool_call, turn
from pi.agent import Agent, AgentTool, LoopConfig, ProgressCallback, ToolRegistry, ToolResult
from pi.ai import AbortSignal, MockProvider, Model, Providers


class Seconds(BaseModel):
    ticks: int


class Wait(AgentTool[Seconds]):
    name = "wait"
    description = "Wait for a number of ticks of the event loop."
    parameters = Seconds

    async def execute(self, call_id: str, params: Seconds, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        for tick in range(params.ticks):
            if signal.aborted:
                raise RuntimeError(f"stopped after {tick} ticks")
            on_update(ToolResult.text(f"tick {tick}"))
            await asyncio.sleep(0)
        return ToolResult.text(f"waited {params.ticks} ticks")


def make_agent(script: list) -> tuple[Agent, MockModel]:
    mock = MockModel(script)
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry([Wait()]))
    return Agent(config), mock


async def steering() -> None:
    agent, mock = make_agent([turn(tool_call("wait", {"ticks": 2})), turn(text("Switching.")),
                              turn(text("Summary: switched to the cache."))])
    agent.subscribe(lambda e, s: agent.steer("Stop waiting, use the cache instead.")
                    if e.type == "tool_execution_start" else None)
    agent.follow_up("Then summarise.")
    agent.subscribe(lambda e, s: print(f"  {e.type:<22} tools={sorted(s.pending_tool_calls)} "
                                       f"messages={len(s.messages)}")
                    if e.type in ("turn_start", "tool_execution_start", "turn_end") else None)
    result = await agent.prompt("Wait two ticks, then report.")
    for number, request in enumerate(mock.requests, start=1):
        print(f"request {number} ends with: {request['messages'][-1]['content']!r}"[:90])
    print(f"run added {len(result.messages)} messages; last error: {agent.state.last_error}")


async def aborting() -> None:
    agent, mock = make_agent([turn(tool_call("wait", {"ticks": 1000})), turn(text("never"))])

    def on_event(event: object, state: object) -> None:
        if getattr(event, "type", "") == "tool_execution_update" and not agent.steering:
            agent.follow_up("and then the docs")
            agent.steer("actually, stop")
            print(f"  abort returns: {[m.content for m in agent.abort()]}")

    agent.subscribe(on_event)
    await agent.prompt("Wait a very long time.")
    last = agent.state.messages[-1]
    print(f"  messages: {[m.role for m in agent.state.messages]}")
    print(f"  last: {last.role}, stop reason {last.stop_reason!r} (as in Pi: the loop asks once "
          f"more and the abort answers); requests that reached the model: {len(mock.requests)}")


async def main() -> None:
    print("steering while a tool runs:")
    await steering()
    print("\nabort while a tool runs:")
    await aborting()


if __name__ == "__main__":
    asyncio.run(main())
