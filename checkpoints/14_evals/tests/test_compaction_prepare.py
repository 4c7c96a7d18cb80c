"""Step 10: a prepared compaction holds exactly what Pi's `prepareCompaction` holds.

Everything is compared with `carry_kept=False` (Pi's behaviour). Our default also
summarises what the previous compaction kept verbatim; the last tests show that difference.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from compaction_reference import Reference, load

from pi.coding_agent.compaction.file_ops import compute_file_lists, format_file_operations
from pi.coding_agent.compaction.prepare import CompactionPreparation, prepare_compaction
from pi.coding_agent.compaction.serialize import serialize_conversation
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.messages import convert_to_llm
from pi.coding_agent.session.tokens import estimate_tokens, js_length

STEP = 10
FIXTURES = ["large-session", "before-compaction"]


def digest(messages: list[Any]) -> dict[str, Any]:
    text = serialize_conversation(convert_to_llm(messages))
    return {"chars": js_length(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def prepare(path: list[Any], keep: int, carry_kept: bool = False) -> CompactionPreparation:
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=keep), carry_kept)
    assert prep is not None
    return prep


def cases(ref: Reference) -> list[dict[str, Any]]:
    other_leaves = ref.expected.get("prepareCompactionAtOtherLeaves", [])
    return ref.expected["prepareCompaction"] + other_leaves


def check_against_pi(ref: Reference, prep: CompactionPreparation, case: dict[str, Any]) -> None:
    assert ref.line(prep.first_kept_entry_id) == case["firstKeptEntry"]["line"]
    assert prep.is_split_turn == case["isSplitTurn"]
    assert prep.tokens_before == case["tokensBefore"]
    assert (prep.previous_summary is not None) == case["previousSummary"]["present"]
    history = case["messagesToSummarize"]
    assert len(prep.messages_to_summarize) == history["count"]
    assert sum(map(estimate_tokens, prep.messages_to_summarize)) == history["estimatedTokens"]
    assert list(prep.history_range) == [history["entryRange"]["pathIndexFrom"],
                                        history["entryRange"]["pathIndexToExclusive"]]
    prefix = case["turnPrefixMessages"]
    assert len(prep.turn_prefix_messages) == prefix["count"]
    expected_range = prefix["entryRange"]
    assert (list(prep.turn_prefix_range) if prep.turn_prefix_range else None) == (
        [expected_range["pathIndexFrom"], expected_range["pathIndexToExclusive"]]
        if expected_range else None)
    ops = prep.file_ops
    assert [sorted(ops.read), sorted(ops.written), sorted(ops.edited)] == [
        case["fileOps"]["read"], case["fileOps"]["written"], case["fileOps"]["edited"]]
    read_files, modified_files = compute_file_lists(ops)
    assert [read_files, modified_files] == [case["fileLists"]["readFiles"],
                                            case["fileLists"]["modifiedFiles"]]
    assert format_file_operations(read_files, modified_files) == case["fileOperationsBlock"]
    assert digest(prep.messages_to_summarize) == case["serializedHistory"]
    assert digest(prep.turn_prefix_messages) == case["serializedTurnPrefix"]


@pytest.mark.parametrize("name", FIXTURES)
def test_preparation_matches_pi_on_the_v3_files(data_dir, name) -> None:
    ref = load(data_dir, name)
    for case in cases(ref):
        prep = prepare(ref.path(case.get("leafId")), case["keepRecentTokens"])
        assert prep.first_kept_entry_id == case["firstKeptEntryId"]
        check_against_pi(ref, prep, case)


@pytest.mark.parametrize("name", FIXTURES)
def test_preparation_matches_pi_on_the_v1_files_by_line(data_dir, name) -> None:
    ref = load(data_dir, name, v1=True)
    for case in cases(ref):
        leaf = ref.id_at(case["leafLine"]) if "leafLine" in case else None
        check_against_pi(ref, prepare(ref.path(leaf), case["keepRecentTokens"]), case)


@pytest.mark.parametrize("name", FIXTURES)
def test_serialisation_reproduces_pis_texts_byte_for_byte(data_dir, name) -> None:
    prep = prepare(load(data_dir, name).path(), 20_000)
    folder = data_dir / "pi-reference" / "expected" / "serialized"
    for messages, kind in ((prep.messages_to_summarize, "history"),
                           (prep.turn_prefix_messages, "turn-prefix")):
        text = serialize_conversation(convert_to_llm(messages))
        assert text.encode("utf-8") == (folder / f"{name}.keep20000.{kind}.txt").read_bytes()


def test_preparation_matches_pi_on_the_synthetic_tree(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    paths = {"active": ref.path(), "branch1(a5)": ref.path(ref.expected["entryNames"]["a5"]["id"])}
    for case in ref.expected["prepareCompaction"]:
        check_against_pi(ref, prepare(paths[case["path"]], case["keepRecentTokens"]), case)


def test_nothing_is_prepared_when_the_path_ends_in_a_compaction(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    path = ref.path(ref.expected["entryNames"]["c1"]["id"])
    assert prepare_compaction(path, CompactionSettings()) is None
    assert prepare_compaction([], CompactionSettings()) is None


def test_pi_drops_what_the_previous_compaction_kept_and_we_summarise_it(data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    case = ref.expected["prepareCompactionAtOtherLeaves"][1]  # leaf 627, after compaction 359
    path = ref.path(case["leafId"])
    pi, ours = prepare(path, 20_000), prepare(path, 20_000, carry_kept=True)
    # Pi: the summarised range starts right after the compaction at line 359 ...
    assert ref.line(path[pi.history_range[0]].id) == 360
    assert pi.carried_messages == [] and pi.history_messages == pi.messages_to_summarize
    # ... although lines 293-358 were still in the context. We summarise them again.
    assert ours.carried_range is not None
    assert [ref.line(path[i].id) for i in ours.carried_range] == [293, 359]
    assert len(ours.carried_messages) == 66
    assert ours.history_messages == ours.carried_messages + pi.messages_to_summarize
    assert digest(ours.history_messages) != case["serializedHistory"]
    assert digest(ours.messages_to_summarize) == case["serializedHistory"]  # the rest is Pi's
    assert (ours.first_kept_entry_id, ours.tokens_before) == (
        pi.first_kept_entry_id, pi.tokens_before)


def test_files_touched_by_carried_messages_are_listed_too(data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    pi, ours = prepare(ref.path(), 20_000), prepare(ref.path(), 20_000, carry_kept=True)
    config = "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/utils/config.ts"
    assert ours.file_ops.read - pi.file_ops.read == {config}
    assert ours.file_ops.edited - pi.file_ops.edited == {config}
    assert ours.file_ops.written == pi.file_ops.written
