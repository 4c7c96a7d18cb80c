"""When to compact (Pi's shouldCompact): when the context is strictly larger than the window
minus a reserve for the reply; the defaults are Pi's settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16_384
    keep_recent_tokens: int = 20_000


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()


def compaction_threshold(context_window: int, settings: CompactionSettings) -> int:
    """The largest context that still fits: the window minus the reserve."""
    return context_window - settings.reserve_tokens


def should_compact(context_tokens: int, context_window: int,
                   settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS) -> bool:
    """Pi's `shouldCompact`: enabled, and the context is above the threshold."""
    return settings.enabled and context_tokens > compaction_threshold(context_window, settings)
