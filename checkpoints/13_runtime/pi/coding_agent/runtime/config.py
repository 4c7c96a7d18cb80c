"""Everything a runtime is built from, injected, with offline defaults; and thinking levels.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from pi.agent.tools import AnyTool
from pi.ai import Model, Providers
from pi.coding_agent.compaction.thresholds import DEFAULT_COMPACTION_SETTINGS, CompactionSettings
from pi.coding_agent.extensions.api import ExtensionUI, NoUI
from pi.coding_agent.session.entries import ThinkingLevel
from pi.coding_agent.session.entries import Clock, IdSource
from pi.coding_agent.session.writer import Opener, open_text


async def real_sleep(ms: int) -> None:
    await asyncio.sleep(ms / 1000)


@dataclass(frozen=True)
class RuntimeConfig:
    cwd: Path
    model: Model
    providers: Providers
    clock: Clock
    ids: IdSource
    session_file: Path | None = None  # None: a new session under `sessions_dir`
    sessions_dir: Path | None = None
    leaf_id: str | None = None  # None: the last entry of the file, as in Pi
    tools: tuple[AnyTool, ...] | None = None  # None: the coding tools on `cwd`
    system_prompt: str | None = None  # None: built by the resource loader
    agent_dir: Path | None = None
    trusted: bool = False
    extension_paths: tuple[Path, ...] = ()
    ui: ExtensionUI = field(default_factory=NoUI)
    sleep: Callable[[int], Awaitable[None]] = real_sleep
    compaction: CompactionSettings = DEFAULT_COMPACTION_SETTINGS
    auto_compaction: bool = True
    auto_retry: bool = True
    max_retries: int = 3
    retry_base_ms: int = 2000
    thinking_level: ThinkingLevel = "off"
    models: tuple[Model, ...] = ()  # what a client may switch to; () means only `model`
    opener: Opener = open_text  # how session files are opened; tests inject failures here
    max_turns: int = 50
    context_ceiling: Path | None = None  # AGENTS.md is looked for no higher than this


THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel)


def supported_thinking_levels(model: Model) -> tuple[ThinkingLevel, ...]:
    """Pi's rule: a reasoning model allows every level up to "high", any other only "off"."""
    return THINKING_LEVELS[:-1] if model.reasoning else ("off",)


def clamp_thinking_level(model: Model, level: str) -> ThinkingLevel:
    """Pi's `clampThinkingLevel`: `level` if allowed, else the next allowed one up, else down
    ("off" is always allowed; an unknown level counts as "off")."""
    allowed = supported_thinking_levels(model)
    index = THINKING_LEVELS.index(level) if level in THINKING_LEVELS else 0
    upwards = [lvl for lvl in THINKING_LEVELS[index:] if lvl in allowed]
    downwards = [lvl for lvl in reversed(THINKING_LEVELS[:index]) if lvl in allowed]
    return (upwards + downwards)[0]
