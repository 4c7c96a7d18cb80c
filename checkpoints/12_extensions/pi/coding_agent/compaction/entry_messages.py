"""The message a session entry stands for, as compaction and branch summaries see it.

Most entries are bookkeeping (model changes, labels, extension state) and stand for nothing.
A `message` entry stands for its message; an extension's message and a branch summary stand
for messages of the coding agent's own roles, as in a context (step 09). Two differences from
building a context: a compaction entry stands for its summary wherever it sits, and a branch
summary counts even when its text is empty.
"""

from __future__ import annotations


from pi.ai import AgentMessage
from pi.coding_agent.messages import BranchSummaryMessage, CodingMessage
from pi.coding_agent.session.context import message_of, summary_of
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    MessageEntry,
    SessionEntry,
)
from pi.coding_agent.session.ids import ms_from_iso

AnyMessage = AgentMessage | CodingMessage


def entry_message(entry: SessionEntry) -> AnyMessage | None:
    """The message `entry` contributes to a summary, or None for bookkeeping entries."""
    if isinstance(entry, MessageEntry):  # most entries
        return entry.message
    if isinstance(entry, CompactionEntry):
        return summary_of(entry)
    if isinstance(entry, BranchSummaryEntry):
        return BranchSummaryMessage(summary=entry.summary, from_id=entry.from_id,
                                    timestamp=ms_from_iso(entry.timestamp))
    return message_of(entry)
