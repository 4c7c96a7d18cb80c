"""Token usage for a reply: taken from the script, or derived from sizes.

Real usage comes from a tokenizer; the MockModel only needs numbers that are plausible,
deterministic and easy to recompute by hand, so it counts roughly four characters per token
(the same rule of thumb Pi uses for its own estimates). Costs are zero: nothing is billed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

CHARACTERS_PER_TOKEN = 4


def estimate_tokens(character_count: int) -> int:
    """ceil(characters / 4) in integer arithmetic."""
    return -(-character_count // CHARACTERS_PER_TOKEN)


def request_characters(request: Any) -> int:
    """Length of the request (or any value) as canonical JSON (sorted keys, non-ASCII kept)."""
    return len(json.dumps(request, sort_keys=True, ensure_ascii=False, default=repr))


def compact_json(value: Any) -> str:
    """The argument text a tool call streams: no spaces, keys in the script's order."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def content_characters(content: Sequence[Mapping[str, Any]]) -> int:
    """Characters the model produced: text, thinking, tool name plus argument JSON."""
    total = 0
    for block in content:
        if block["type"] == "text":
            total += len(block["text"])
        elif block["type"] == "thinking":
            total += len(block["thinking"])
        elif block["type"] == "toolCall":
            total += len(block["name"]) + len(compact_json(block["arguments"]))
    return total


def zero_usage() -> dict[str, Any]:
    return build_usage(input_tokens=0, output_tokens=0)


def build_usage(
    input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
) -> dict[str, Any]:
    return {
        "input": input_tokens,
        "output": output_tokens,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": input_tokens + output_tokens + cache_read + cache_write,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


def derive_usage(
    request: Mapping[str, Any], content: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Usage computed from the request size and the content produced so far."""
    return usage_for(request_characters(request), content)


def usage_for(request_size: int, content: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`derive_usage` for a request whose canonical JSON is `request_size` characters."""
    return build_usage(
        input_tokens=estimate_tokens(request_size),
        output_tokens=estimate_tokens(content_characters(content)),
    )


def apply_override(derived: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Replace derived fields by scripted ones; totals follow unless given explicitly."""
    tokens = {key: override.get(key, derived[key]) for key in derived if key != "cost"}
    if "totalTokens" not in override:
        tokens["totalTokens"] = sum(
            tokens[key] for key in ("input", "output", "cacheRead", "cacheWrite")
        )
    cost = {**derived["cost"], **{k: float(v) for k, v in override.get("cost", {}).items()}}
    if "total" not in override.get("cost", {}):
        cost["total"] = sum(cost[key] for key in ("input", "output", "cacheRead", "cacheWrite"))
    return {**tokens, "cost": cost}
