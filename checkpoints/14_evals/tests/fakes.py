"""Fake tools for the tests of steps 05 on: deterministic, and they never sleep.

`work` finishes after yielding to the event loop `x` times, so x=5 finishes after x=1 without
any wall-clock time; it records when calls start and end, and how many ran at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal


class Numbers(BaseModel):
    x: int


class Tally:
    """What the fake tools did, shared by all tools of one test."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.active = 0
        self.peak = 0


def work_tool(tally: Tally, name: str = "work", exclusive: bool = False) -> AgentTool[Any]:
    class Work(AgentTool[Numbers]):
        parameters = Numbers

        async def execute(self, call_id: str, params: Numbers, signal: AbortSignal,
                          on_update: ProgressCallback) -> ToolResult:
            tally.log.append(f"start {call_id}")
            tally.active += 1
            tally.peak = max(tally.peak, tally.active)
            on_update(ToolResult.text(f"{call_id} working"))
            try:
                for _ in range(abs(params.x)):
                    await asyncio.sleep(0)
                    if signal.aborted:
                        raise RuntimeError(f"{name} aborted")
            finally:
                tally.active -= 1
            tally.log.append(f"end {call_id}")
            if params.x < 0:
                raise ValueError(f"{name} failed for x={params.x}")
            return ToolResult.text(f"{name}({params.x}) done", details={"x": params.x})

    Work.name = name
    Work.description = f"Finishes after x turns of the event loop ({name})."
    Work.exclusive = exclusive
    return Work()
