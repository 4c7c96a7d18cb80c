"""Step 13: compaction as the runtime runs it: prepare, summarise, record, re-seed.

The steps are all from step 10; what the runtime adds is the bookkeeping around them: the
compaction entry is appended to the session (nothing is removed), the agent is re-seeded with
the rebuilt context (summary + kept messages), and a failed summary records nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi.agent import LoopConfig
from pi.coding_agent.compaction.compact import compact
from pi.coding_agent.compaction.prepare import prepare_compaction
from pi.coding_agent.compaction.summarize import SummaryError
from pi.coding_agent.compaction.thresholds import CompactionSettings, should_compact
from pi.coding_agent.messages import CodingMessage
from pi.coding_agent.session.context import message_of
from pi.coding_agent.session.entries import CompactionEntry, MessageEntry, SessionEntry
from pi.coding_agent.session.tokens import estimate_context_tokens, last_usage_index
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


def usage_is_stale(path: list[SessionEntry], messages: list[AgentMessage | CodingMessage]) -> bool:
    """True when the usage the estimate would rest on was measured before the latest compaction.

    A reply the compaction kept still carries the usage of the old, larger context; judging
    the threshold by it starts a second compaction at once, which has nothing new to do. Pi
    skips such a reply (it compares timestamps); we compare positions, which needs no clock:
    the messages after the compaction entry are the last ones of the context.
    """
    latest = next((i for i in range(len(path) - 1, -1, -1)
                   if isinstance(path[i], CompactionEntry)), None)
    if latest is None:
        return False
    index = last_usage_index(messages)
    after = sum(1 for entry in path[latest + 1:] if message_of(entry) is not None)
    return index is None or index < len(messages) - after


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
