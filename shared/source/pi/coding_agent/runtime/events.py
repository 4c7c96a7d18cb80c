"""Compaction and retry events in Pi's shapes, and the course's own `turn_limit_reached`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pi.agent import AgentEvent
from pi.coding_agent.session.entries import CompactionEntry

CompactionReason = Literal["threshold", "overflow", "manual"]


@dataclass(frozen=True, kw_only=True)
class CompactionStart:
    type: Literal["compaction_start"] = "compaction_start"
    reason: CompactionReason


@dataclass(frozen=True, kw_only=True)
class CompactionEnd:
    type: Literal["compaction_end"] = "compaction_end"
    reason: CompactionReason
    entry: CompactionEntry | None  # None: nothing was recorded (error_message says why)
    will_retry: bool
    error_message: str | None = None


def recovery_failed(overflow: bool) -> CompactionEnd:
    """Pi's end of a recovery whose one compact-and-retry failed the same way again."""
    why = ("Context overflow recovery failed after one compact-and-retry attempt. Try reducing "
           "context or switching to a larger-context model." if overflow else
           "Truncated response recovery failed after one compact-and-retry attempt.")
    return CompactionEnd(reason="overflow", entry=None, will_retry=False, error_message=why)


@dataclass(frozen=True, kw_only=True)
class AutoRetryStart:
    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


@dataclass(frozen=True, kw_only=True)
class AutoRetryEnd:
    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


@dataclass(frozen=True, kw_only=True)
class TurnLimitReached:
    """The run stopped at its turn limit while the model still wanted tools (not in Pi)."""

    type: Literal["turn_limit_reached"] = "turn_limit_reached"
    max_turns: int
    message: str


RuntimeEvent = (AgentEvent | CompactionStart | CompactionEnd | AutoRetryStart
                | AutoRetryEnd | TurnLimitReached)
