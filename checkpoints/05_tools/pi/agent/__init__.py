"""pi.agent: the middle layer, like Pi's pi-agent-core: tools, the agent loop, the Agent.

It builds on pi.ai (messages, streams, the model boundary) and knows nothing of files,
sessions or coding: those belong to pi.coding_agent above it.
"""

from pi.agent.tool_calls import error_result, run_tool_call
from pi.agent.tools import AgentTool, ProgressCallback, ToolRegistry, ToolResult


__all__ = [
    "AgentTool",
    "ProgressCallback",
    "ToolRegistry",
    "ToolResult",
    "error_result",
    "run_tool_call",
]
