"""An eval case driven through Pi's RPC protocol (the `rpc` case key): the prompt and then each
command go to an in-process RpcServer, one at a time, waiting until it is idle; the responses
are observed, and after a `fork` the new runtime's transcript and session are.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi.agent import LoopResult
from pi.ai import AgentMessage
from pi.coding_agent.runtime.runtime import Runtime
from pi.modes.rpc import RpcServer, RpcUI


async def idle(server: RpcServer) -> None:
    """Wait until no command is being handled and no run is going."""
    while server.tasks or server.streaming:
        await asyncio.gather(*server.tasks, *([server.run] if server.run else []))


async def over_rpc(case: dict[str, Any], runtime: Runtime, responses: list[dict[str, Any]],
                   ) -> tuple[list[AgentMessage], LoopResult, Path]:
    """The prompt and the case's commands through one RpcServer; what it ended with."""

    def write(line: dict[str, Any]) -> None:
        if line.get("type") == "response":
            responses.append(line)

    server = RpcServer(runtime, RpcUI(write), write)
    for command in [{"type": "prompt", "message": case["prompt"]}, *case["rpc"]]:
        server.accept(json.dumps(command))
        await idle(server)
    await server.finish()
    final = server.runtime
    return list(final.messages), LoopResult((), final.agent.state.last_error), final.writer.path
