"""pi.agent: the middle layer, like Pi's pi-agent-core: tools, the agent loop, the Agent.

It builds on pi.ai and knows nothing of files, sessions or coding (pi.coding_agent's part).
"""

from pi.agent.tool_calls import error_result, run_tool_call
from pi.agent.tools import AgentTool, ProgressCallback, ToolRegistry, ToolResult

from pi.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pi.agent.loop import LoopConfig, LoopResult, llm_messages, run_loop


__all__ = [
    "AgentTool", "ProgressCallback", "ToolRegistry", "ToolResult", "error_result", "run_tool_call",
    "AgentEnd", "AgentEvent", "AgentStart", "LoopConfig", "LoopResult", "MessageEnd",
    "MessageStart", "MessageUpdate", "ToolExecutionEnd", "ToolExecutionStart",
    "ToolExecutionUpdate", "TurnEnd", "TurnStart", "llm_messages", "run_loop",
]
