"""The coding agent's own message roles (to pi.ai opaque AppMessages), stored as they are and
turned into plain user messages only when a request is built (`convert_to_llm`)."""

from __future__ import annotations

from typing import Any, Literal

from pi.ai import AgentMessage, AppMessage, Message, TextContent, UserMessage
from pi.ai.content import Stored, UserBlock


class BashExecutionMessage(Stored):
    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: int


class CustomMessage(Stored):
    """A message an extension put into the conversation; `display` says whether UIs show it."""

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | tuple[UserBlock, ...]
    display: bool
    details: Any = None
    timestamp: int


class BranchSummaryMessage(Stored):
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int


class CompactionSummaryMessage(Stored):
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int
    timestamp: int


CodingMessage = (BashExecutionMessage | CustomMessage | BranchSummaryMessage
                 | CompactionSummaryMessage)
AnyMessage = AgentMessage | CodingMessage  # a message of a transcript
# Our own wording; Pi's texts differ (the reference data keeps them out on purpose).
COMPACTION_LEAD = "The conversation so far was compacted. This summary replaces the earlier part:"
BRANCH_LEAD = "Before returning here, the user explored another branch. Its summary:"


def bash_text(message: BashExecutionMessage) -> str:
    """A shell command the user ran, as the model reads it: each note after a blank line."""
    head = f"Ran `{message.command}`\n" + (f"```\n{message.output}\n```" if message.output
                                           else "(no output)")
    notes = []
    if message.cancelled:
        notes.append("(command cancelled)")
    elif message.exit_code not in (None, 0):
        notes.append(f"Command exited with code {message.exit_code}")
    if message.truncated and message.full_output_path:
        notes.append(f"[Output truncated. Full output: {message.full_output_path}]")
    return "\n\n".join([head, *notes])


def convert_to_llm(messages: list[AnyMessage]) -> tuple[Message, ...]:
    """What a model is sent for a transcript: coding roles become user messages where they
    stand."""
    out: list[Message] = []
    for message in messages:
        content: str | tuple[UserBlock, ...]
        if isinstance(message, BashExecutionMessage):
            if message.exclude_from_context:
                continue
            content = bash_text(message)
        elif isinstance(message, CustomMessage):
            content = message.content
        elif isinstance(message, BranchSummaryMessage):
            content = f"{BRANCH_LEAD}\n\n<summary>\n{message.summary}</summary>"
        elif isinstance(message, CompactionSummaryMessage):
            content = f"{COMPACTION_LEAD}\n\n<summary>\n{message.summary}\n</summary>"
        else:
            if not isinstance(message, AppMessage):
                out.append(message)
            continue
        blocks = (TextContent(text=content),) if isinstance(content, str) else content
        out.append(UserMessage(content=blocks, timestamp=message.timestamp))
    return tuple(out)
