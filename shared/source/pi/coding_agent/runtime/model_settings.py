"""Which models a person may switch to, and which thinking levels a model allows.

Pi lets a client list the models it could use, switch or cycle between them, and set or cycle
the thinking level. A model without reasoning allows only "off"; a reasoning model allows
every level up to "high" ("xhigh" only where a model maps it, which none of ours does). A
level the model does not allow is clamped to the nearest one it does, upwards first, as in
Pi's `clampThinkingLevel`, so switching to a smaller model never leaves an impossible level.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi.ai import Model

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


def supported_thinking_levels(model: Model) -> tuple[str, ...]:
    return THINKING_LEVELS[:-1] if model.reasoning else ("off",)


def clamp_thinking_level(model: Model, level: str) -> str:
    """`level` if the model allows it, else the next allowed one up, else the next one down."""
    allowed = supported_thinking_levels(model)
    if level in allowed:
        return level
    if level not in THINKING_LEVELS:
        return allowed[0]
    index = THINKING_LEVELS.index(level)
    upwards = [lvl for lvl in THINKING_LEVELS[index:] if lvl in allowed]
    downwards = [lvl for lvl in reversed(THINKING_LEVELS[:index]) if lvl in allowed]
    return (upwards or downwards or [allowed[0]])[0]


def next_in_cycle(items: Sequence[str], current: str) -> str:
    """The item after `current` (the first one when `current` is not among them)."""
    index = items.index(current) if current in items else -1
    return items[(index + 1) % len(items)]


def same_model(a: Model, b: Model) -> bool:
    return (a.provider, a.id) == (b.provider, b.id)
