"""What the summariser reads: the conversation as one transcript (a document to summarise, not
a conversation to answer) and our instructions; the wording is ours, the shape is Pi's."""

from __future__ import annotations

from collections.abc import Sequence

from pi.ai import AssistantMessage, TextContent, ToolCall, UserMessage
from pi.ai.messages import json_text
from pi.coding_agent.messages import AnyMessage, convert_to_llm
from pi.coding_agent.session.tokens import js_length

TOOL_RESULT_MAX_CHARS = 2000


def truncate_for_summary(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    """Pi's cut of a long tool result: the first `limit` UTF-16 units (`sliceHead`), with a
    character the cut would split in two left out whole, as half of one is not valid text."""
    length = js_length(text)
    if length <= limit:
        return text
    kept = text.encode("utf-16-le", "surrogatepass")[: limit * 2].decode("utf-16-le",
                                                                         "surrogatepass")
    if kept[-1:] != text[len(kept) - 1:len(kept)]:  # the cut fell inside a character
        kept = kept[:-1]
    return f"{kept}\n\n[... {length - limit} more characters truncated]"


def tool_call_text(call: ToolCall) -> str:
    arguments = ", ".join(f"{key}={json_text(value)}"
                          for key, value in call.arguments.items())
    return f"{call.name}({arguments})"


def assistant_parts(message: AssistantMessage) -> list[str]:
    """Text, then tool calls: each kind becomes one labelled part. Thinking is left out (Pi
    1.x): it is often not what the model saw, and can outgrow the context it summarises."""
    texts = [b.text for b in message.content if isinstance(b, TextContent)]
    calls = [tool_call_text(b) for b in message.content if isinstance(b, ToolCall)]
    parts = []
    if texts:
        parts.append("[Assistant]: " + "\n".join(texts))
    if calls:
        parts.append("[Assistant tool calls]: " + "; ".join(calls))
    return parts


def serialize_conversation(messages: Sequence[AnyMessage]) -> str:
    """Pi's `serializeConversation` of what a model is sent, byte for byte: labelled parts
    joined by blank lines."""
    parts: list[str] = []
    for message in convert_to_llm(list(messages)):
        if isinstance(message, AssistantMessage):
            parts.extend(assistant_parts(message))
            continue
        content = message.content
        text = content if isinstance(content, str) else "".join(
            block.text for block in content if isinstance(block, TextContent))
        if text and isinstance(message, UserMessage):
            parts.append(f"[User]: {text}")
        elif text:
            parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


SYSTEM_PROMPT = ("You write checkpoint summaries of coding sessions. You are given a transcript "
                 "of a user working with a coding assistant. Do not carry on that conversation "
                 "and do not answer anything it asks: reply with the summary in the requested "
                 "layout and nothing else.")

CHECKPOINT_LAYOUT = """## Goal
What the user wants done; several goals if the session moved between tasks.

## Constraints & Preferences
- Requirements, limits and preferences the user stated, or "(none)"

## Progress
### Done
- [x] Work that is finished

### In Progress
- [ ] Work that was started and is not finished

### Blocked
- What stops the work, if anything

## Key Decisions
- **The decision**: why it was made

## Next Steps
1. What to do next, in order"""

CRITICAL_CONTEXT = ("\n\n## Critical Context\n"
                    '- Facts, data or references the next assistant cannot do without, or "(none)"')

BE_EXACT = ("\n\nBe brief in every section. "
            "Copy file paths, function names and error messages exactly.")

HISTORY_INSTRUCTIONS = ("Summarise the conversation above as a checkpoint that another assistant "
                        "will use to continue the work. Use exactly this layout:\n\n"
                        + CHECKPOINT_LAYOUT + CRITICAL_CONTEXT + BE_EXACT)

UPDATE_INSTRUCTIONS = (
    "The conversation above continues the work described in <previous-summary>. Write the "
    "updated checkpoint. Keep everything from the previous summary that still holds; add what "
    "the new messages did, found and decided; move items that are now finished from In "
    "Progress to Done; revise Next Steps; drop only what no longer matters. Use exactly this "
    "layout:\n\n" + CHECKPOINT_LAYOUT + CRITICAL_CONTEXT + BE_EXACT)

TURN_PREFIX_INSTRUCTIONS = """The conversation above is only the beginning of one long turn; \
the rest of that turn is kept word for word after this summary. Summarise the beginning so \
that the kept part makes sense on its own:

## Original Request
What the user asked for in this turn.

## Progress So Far
- What was done and decided before the kept part

## Context Needed to Continue
- What a reader needs to follow the kept part

Only what the conversation above says; do not guess at the kept part."""

BRANCH_INSTRUCTIONS = ("Summarise the conversation above: a branch the user worked on and then "
                       "left, so that the work can be picked up again later. Use exactly this "
                       "layout:\n\n" + CHECKPOINT_LAYOUT + BE_EXACT)

BRANCH_PREAMBLE = ("Before coming back to this point, the user followed another branch of the "
                   "conversation.\nWhat happened there:\n\n")


def summary_prompt(conversation: str, instructions: str, previous: str | None = None,
                   focus: str | None = None) -> str:
    """The one user message of a summary request, in Pi's order of parts."""
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous:
        text += f"<previous-summary>\n{previous}\n</previous-summary>\n\n"
    if focus:
        instructions = f"{instructions}\n\nAdditional focus: {focus}"
    return text + instructions


def turn_prefix_prompt(conversation: str, focus: str | None = None) -> str:
    """The request for a split turn's first half (Pi 1.x): headed sections, not tags."""
    text = f"# Conversation\n{conversation}\n\n# Instructions\n{TURN_PREFIX_INSTRUCTIONS}"
    return f"{text}\n\nAdditional focus: {focus}" if focus else text
