"""Example extension: keep the agent's hands off files that hold secrets.

A `tool_call` handler refuses every write or edit of a secret file (`.env`, keys, certificates),
so the model learns to leave them alone. A `tool_result` handler hides secret-looking values
(`API_KEY=...`) in whatever a tool hands back, before the model, and the provider, see them.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import PurePosixPath

from pi.agent.tool_calls import BlockDecision
from pi.ai import TextContent, ToolResultMessage
from pi.coding_agent.extensions.api import ExtensionAPI, ToolCallEvent, ToolResultEvent

SECRET_FILES = (".env", ".env.*", "*.pem", "*.key", "id_rsa", "id_ecdsa", "id_ed25519",
                ".netrc", "credentials.json")
ALLOWED = (".env.example", ".env.sample")
CHANGING_TOOLS = ("write", "edit")
ASSIGNMENT = re.compile(r"(?im)^(\s*(export\s+)?\w*(KEY|SECRET|TOKEN|PASSWORD)\w*\s*[=:]\s*)(\S+)")


def is_secret(path: str) -> bool:
    name = PurePosixPath(path.replace("\\", "/")).name
    return name not in ALLOWED and any(fnmatch(name, pattern) for pattern in SECRET_FILES)


def extension(api: ExtensionAPI) -> None:
    def guard(event: ToolCallEvent) -> BlockDecision | None:
        path = str(event.input.get("path", ""))
        if event.tool_name in CHANGING_TOOLS and is_secret(path):
            return BlockDecision(f"Refused: {path} holds secrets and must not be changed.")
        return None

    def redact(event: ToolResultEvent) -> ToolResultMessage | None:
        blocks = event.result.content
        hidden = tuple(TextContent(text=ASSIGNMENT.sub(r"\1***", b.text))
                       if isinstance(b, TextContent) else b for b in blocks)
        return None if hidden == blocks else event.result.model_copy(update={"content": hidden})

    api.on("tool_call", guard)
    api.on("tool_result", redact)
