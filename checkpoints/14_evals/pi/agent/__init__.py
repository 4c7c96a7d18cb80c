"""pi.agent: the middle layer, like Pi's pi-agent-core: tools, the agent loop, the Agent.

It builds on pi.ai and knows nothing of files, sessions or coding (pi.coding_agent's part);
the facade lists what code outside this package uses."""

from pi.agent.tool_calls import run_tool_call
from pi.agent.tools import AgentTool, ProgressCallback, ToolRegistry, ToolResult

from pi.agent.events import (AgentEvent, MessageEnd, MessageUpdate, ToolExecutionEnd,
                             ToolExecutionStart, ToolExecutionUpdate)
from pi.agent.loop import LoopConfig, LoopResult, run_loop

from pi.agent.agent import Agent, AgentBusyError, AgentState

from pi.agent.tool_calls import BlockDecision


__all__ = [
    "AgentTool", "ProgressCallback", "ToolRegistry", "ToolResult", "run_tool_call",
    "AgentEvent", "LoopConfig", "LoopResult", "MessageEnd", "MessageUpdate", "ToolExecutionEnd",
    "ToolExecutionStart", "ToolExecutionUpdate", "run_loop",
    "Agent", "AgentBusyError", "AgentState",
    "BlockDecision",
]
