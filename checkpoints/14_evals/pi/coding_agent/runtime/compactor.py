"""Compaction as the runtime runs it: prepare, summarise, record, re-seed.

The steps are all from step 10; what the runtime adds is the bookkeeping around them: the
compaction entry is appended to the session (nothing is removed), the agent is re-seeded with
the rebuilt context (summary + kept messages), and a failed summary records nothing at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.agent import LoopConfig
from pi.coding_agent.compaction.compact import SummaryError, compact
from pi.coding_agent.compaction.prepare import prepare_compaction
from pi.coding_agent.compaction.thresholds import CompactionSettings, should_compact
from pi.coding_agent.messages import CodingMessage
from pi.coding_agent.session.context import latest_compaction, message_of
from pi.coding_agent.session.entries import MessageEntry, SessionEntry
from pi.coding_agent.session.tokens import estimate_context_tokens
from pi.coding_agent.session.writer import SessionWriter
from pi.ai import AgentMessage


@dataclass(frozen=True)
class Compacted:
    entry_id: str
    tokens_before: int


def context_tokens(messages: list[AgentMessage | CodingMessage]) -> int:
    return estimate_context_tokens(messages).tokens


def over_threshold(messages: list[AgentMessage | CodingMessage], window: int,
                   settings: CompactionSettings) -> bool:
    return should_compact(context_tokens(messages), window, settings)


def messages_since_compaction(path: Sequence[SessionEntry]) -> int | None:
    """How many context messages the path holds after its latest compaction (None: no
    compaction on the path). They are the last messages of the context, so a reply before
    them was measured on the old, larger context: its usage must not judge the threshold.

    A reply the compaction kept still carries the usage of the old context; judging by it
    starts a second compaction at once, which has nothing new to do. Pi skips such a reply
    (it compares timestamps); we compare positions, which needs no clock.
    """
    latest = latest_compaction(path)
    if latest < 0:
        return None
    return sum(1 for entry in path[latest + 1:] if message_of(entry) is not None)


async def compact_session(writer: SessionWriter, loop: LoopConfig, settings: CompactionSettings,
                          focus: str | None = None) -> Compacted | str:
    """Compact the current branch; the new entry's id, or why nothing was recorded."""
    path = writer.tree.path_to(writer.leaf_id) if writer.leaf_id is not None else []
    if not any(isinstance(entry, MessageEntry) for entry in path):
        return "Nothing to compact"
    prep = prepare_compaction(path, settings)
    if prep is None:
        return "Already compacted"
    result = await compact(prep, loop.model, loop.stream, focus, loop.options)
    if isinstance(result, SummaryError):
        return f"compaction failed, nothing recorded: {result.text}"
    entry_id = writer.append_compaction(result.summary, result.first_kept_entry_id,
                                        result.tokens_before, result.details)
    return Compacted(entry_id, result.tokens_before)
