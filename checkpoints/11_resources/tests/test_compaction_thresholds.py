"""Pi compacts only when the context is strictly above window − reserve."""

from __future__ import annotations

import json

from compaction_reference import load

from pi.coding_agent.compaction.thresholds import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    compaction_threshold,
    should_compact,
)
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.tokens import estimate_context_tokens

STEP = 10


def test_should_compact_matches_pis_truth_table(data_dir) -> None:
    table = json.loads((data_dir / "pi-reference" / "expected" / "should-compact.json")
                       .read_text(encoding="utf-8"))
    for case in table["cases"]:
        settings = CompactionSettings(enabled=case["enabled"],
                                      reserve_tokens=case["reserveTokens"])
        assert should_compact(case["contextTokens"], case["contextWindow"], settings) == case[
            "shouldCompact"], case


def test_the_threshold_itself_still_fits() -> None:
    assert compaction_threshold(200_000, DEFAULT_COMPACTION_SETTINGS) == 183_616
    assert not should_compact(183_616, 200_000) and should_compact(183_617, 200_000)


def test_pis_defaults() -> None:
    assert CompactionSettings(True, 16_384, 20_000) == DEFAULT_COMPACTION_SETTINGS


def test_a_disabled_setting_never_compacts() -> None:
    assert not should_compact(10**9, 1000, CompactionSettings(enabled=False))


def test_a_large_session_is_due_for_compaction_in_a_small_window(data_dir) -> None:
    ref = load(data_dir, "large-session")
    context = build_context(ref.session.tree, ref.session.tree.leaf_on_load)
    tokens = estimate_context_tokens(list(context.messages)).tokens
    assert should_compact(tokens, 128_000) and not should_compact(tokens, 200_000)
