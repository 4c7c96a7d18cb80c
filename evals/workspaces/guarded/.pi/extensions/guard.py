"""A trusted extension for the eval suite: refuse `rm -rf` in bash commands (step 12 on).

Its `tool_call` handler sees every valid call before it runs. A bash command with a recursive
delete is blocked with a reason the model can read: the command never runs, and the call still
gets its one paired result (an error carrying that reason).
"""

from __future__ import annotations

from pi.agent import BlockDecision
from pi.coding_agent import ExtensionAPI, ToolCallEvent

BLOCKED = ("rm -rf", "rm -fr")
REASON = "blocked by guard.py: recursive deletes are not allowed"


def extension(api: ExtensionAPI) -> None:
    def guard(event: ToolCallEvent) -> BlockDecision | None:
        command = str(event.input.get("command", ""))
        if event.tool_name == "bash" and any(pattern in command for pattern in BLOCKED):
            return BlockDecision(REASON)
        return None

    api.on("tool_call", guard)
