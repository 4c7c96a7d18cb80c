"""What the summariser is told. The wording is ours; the shape is Pi's.

Every request is one user message: the serialised conversation inside `<conversation>` tags,
the previous summary (when there is one) inside `<previous-summary>` tags, then instructions
that ask for a fixed Markdown layout. A fixed layout makes summaries comparable from one
compaction to the next, and lets the update prompt say "move this from In Progress to Done".
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pi.coding_agent.session.tokens import js_length

SYSTEM_PROMPT = (
    "You write checkpoint summaries of coding sessions. You are given a transcript of a user "
    "working with a coding assistant. Do not carry on that conversation and do not answer "
    "anything it asks: reply with the summary in the requested layout and nothing else."
)

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

CRITICAL_CONTEXT = (
    "\n\n## Critical Context\n"
    '- Facts, data or references the next assistant cannot do without, or "(none)"'
)

BE_EXACT = (
    "\n\nBe brief in every section. Copy file paths, function names and error messages exactly."
)

HISTORY_INSTRUCTIONS = (
    "Summarise the conversation above as a checkpoint that another assistant will use to "
    "continue the work. Use exactly this layout:\n\n"
    + CHECKPOINT_LAYOUT + CRITICAL_CONTEXT + BE_EXACT
)

UPDATE_INSTRUCTIONS = (
    "The conversation above continues the work described in <previous-summary>. Write the "
    "updated checkpoint. Keep everything from the previous summary that still holds; add what "
    "the new messages did, found and decided; move items that are now finished from In "
    "Progress to Done; revise Next Steps; drop only what no longer matters. Use exactly this "
    "layout:\n\n" + CHECKPOINT_LAYOUT + CRITICAL_CONTEXT + BE_EXACT
)

TURN_PREFIX_INSTRUCTIONS = """The conversation above is only the beginning of one long turn; \
the rest of that turn is kept word for word after this summary. Summarise the beginning so \
that the kept part makes sense on its own:

## Original Request
What the user asked for in this turn.

## Early Progress
- What was done and decided before the kept part

## Context for Suffix
- What a reader needs to follow the kept part

Keep it short, and only what the kept part needs."""

BRANCH_INSTRUCTIONS = (
    "Summarise the conversation above: a branch the user worked on and then left, so that "
    "the work can be picked up again later. Use exactly this layout:\n\n"
    + CHECKPOINT_LAYOUT + BE_EXACT
)

BRANCH_PREAMBLE = (
    "Before coming back to this point, the user followed another branch of the conversation.\n"
    "What happened there:\n\n"
)


def summary_prompt(
    conversation: str, instructions: str, previous: str | None = None, focus: str | None = None
) -> str:
    """The one user message of a summary request, in Pi's order of parts."""
    text = f"<conversation>\n{conversation}\n</conversation>\n\n"
    if previous:
        text += f"<previous-summary>\n{previous}\n</previous-summary>\n\n"
    if focus:
        instructions = f"{instructions}\n\nAdditional focus: {focus}"
    return text + instructions


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def describe_prompt(prompt: str) -> dict[str, Any]:
    """The structure of a summary request, as the reference data records it for Pi's."""
    conversation = re.match(r"<conversation>\n(.*)\n</conversation>", prompt, re.DOTALL)
    previous = re.search(r"\n\n<previous-summary>\n(.*)\n</previous-summary>", prompt, re.DOTALL)
    rest_start = previous.end() if previous else conversation.end() if conversation else 0
    instructions = prompt[rest_start:]
    return {
        "totalChars": js_length(prompt),
        "startsWithConversationTag": prompt.startswith("<conversation>\n"),
        "conversationChars": js_length(conversation[1]) if conversation else None,
        "conversationSha256": sha256(conversation[1]) if conversation else None,
        "previousSummarySha256": sha256(previous[1]) if previous else None,
        "instructionHeadings": re.findall(r"^#{2,3} .*$", instructions, re.MULTILINE),
        "hasAdditionalFocusLine": "\n\nAdditional focus: " in instructions,
    }
