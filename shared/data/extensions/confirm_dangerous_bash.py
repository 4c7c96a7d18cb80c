"""Example extension: ask before a dangerous shell command runs.

A `tool_call` handler looks at every bash call. When the command matches one of the patterns
below, it asks the person through `api.ui.confirm`; anything but a clear yes blocks the call,
and the model reads why. Without a person to ask (print mode), confirm answers no.
"""

from __future__ import annotations

import re

from pi.agent.tool_calls import BlockDecision
from pi.coding_agent.extensions.api import ExtensionAPI, ToolCallEvent

DANGEROUS = {
    "recursive delete": re.compile(r"\brm\s+(-\w+\s+)*(-\w*[rR]|--recursive)"),
    "force push": re.compile(r"\bgit\s+push\b.*\s(--force\b|--force-with-lease\b|-f\b)"),
    "hard reset": re.compile(r"\bgit\s+reset\s+--hard\b"),
    "superuser": re.compile(r"(^|[;&|]\s*)sudo\b"),
    "disk write": re.compile(r"\b(mkfs(\.\w+)?|dd\s+if=)"),
}


def danger_of(command: str) -> str | None:
    """The first kind of danger the command shows, or None."""
    return next((kind for kind, pattern in DANGEROUS.items() if pattern.search(command)), None)


def extension(api: ExtensionAPI) -> None:
    async def gate(event: ToolCallEvent) -> BlockDecision | None:
        if event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        danger = danger_of(command)
        if danger is None:
            return None
        if await api.ui.confirm(f"Allow a {danger}?", command):
            return None
        return BlockDecision(f"Blocked: `{command}` is a {danger} and the user did not allow it.")

    api.on("tool_call", gate)
