"""Part 4 of the differential suite: an abort while a tool runs, in Pi's Agent and ours.

Pi's loop (pi-agent-core) records the tool's error result, asks the model once more, and the
aborted signal answers with an `aborted` reply. The course's Agent must record the same roles,
stop reasons and error flags. One scenario; it is here because reading Pi's code is not proof.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from differential import first_difference, run_node


def course_messages() -> list[list[Any]]:
    from pydantic import BaseModel

    from mock_model import MockModel, text, tool_call, turn
    from pi.agent import Agent, AgentTool, LoopConfig, ToolRegistry, ToolResult
    from pi.agent.loop import with_system_message
    from pi.ai import MockProvider, Model, Providers

    class Nothing(BaseModel):
        pass

    class Wait(AgentTool[Nothing]):
        name, description, parameters = "wait", "Wait until aborted.", Nothing

        async def execute(self, call_id: str, params: Nothing, signal: Any,
                          on_update: Any) -> ToolResult:
            agent.abort()
            while not signal.aborted:
                await asyncio.sleep(0)
            raise RuntimeError("aborted")

    mock = MockModel([turn(tool_call("wait", {})), turn(text("never"))])
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry([Wait()]))
    agent = Agent(config)
    asyncio.run(agent.prompt("go"))
    # docs/divergences.md row 11: Pi's Agent keeps the leading system message in its state; the
    # course's leads each request with it (`with_system_message`), so that is what is compared.
    read = with_system_message(agent.state.messages, agent.config)
    return [[m.role, getattr(m, "stop_reason", None), getattr(m, "is_error", None)] for m in read]


def loop_probe(modules: Path) -> tuple[int, list[str]]:
    theirs = json.loads(run_node("loop_probe.mjs", modules=modules))["messages"]
    found = first_difference(course_messages(), theirs)
    return 1, [f"loop probe (abort during a tool): first difference at {found}"] if found else []
