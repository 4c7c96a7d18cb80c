"""A prepared compaction holds exactly what Pi's `prepareCompaction` holds.

Compared with the pinned newest Pi (expected/newest/, made by shared/pi_oracle/reference.mjs).
Pi 0.58.3 searched after the latest compaction and counted `tokensBefore` from there; the last
tests show where its recorded results (expected/<name>.json) and 0.73's differ, and why.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from compaction_reference import Reference, load

from pi.ai import AssistantMessage, TextContent, ToolResultMessage, Usage, UserMessage
from pi.coding_agent.compaction.compact import CompactionPreparation, prepare_compaction
from pi.coding_agent.compaction.prompts import serialize_conversation
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.compaction.utils import compute_file_lists, format_file_operations
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import SessionHeader, fixed_clock, sequential_ids
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens, js_length
from pi.coding_agent.session.writer import SessionWriter

STEP = 10
FIXTURES = ["large-session", "before-compaction"]


def digest(messages: list[Any]) -> dict[str, Any]:
    text = serialize_conversation(messages)
    return {"chars": js_length(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def prepare(path: list[Any], keep: int) -> CompactionPreparation:
    prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=keep))
    assert prep is not None
    return prep


def cases(ref: Reference) -> list[dict[str, Any]]:
    other_leaves = ref.newest.get("prepareCompactionAtOtherLeaves", [])
    return ref.newest["prepareCompaction"] + other_leaves


def check_against_pi(ref: Reference, prep: CompactionPreparation | None,
                     case: dict[str, Any]) -> None:
    if "firstKeptEntryId" not in case:  # Pi 1.6 has nothing to compact there
        assert prep is None and case["prepareCompaction"] is None, case
        return
    assert prep is not None
    assert ref.line(prep.first_kept_entry_id) == case["firstKeptEntry"]["line"]
    assert prep.is_split_turn == case["isSplitTurn"]
    assert prep.tokens_before == case["tokensBefore"]
    assert (prep.previous_summary is not None) == case["previousSummary"]["present"]
    history = case["messagesToSummarize"]
    assert len(prep.messages_to_summarize) == history["count"]
    assert sum(map(estimate_tokens, prep.messages_to_summarize)) == history["estimatedTokens"]
    prefix = case["turnPrefixMessages"]
    assert len(prep.turn_prefix_messages) == prefix["count"]
    assert sum(map(estimate_tokens, prep.turn_prefix_messages)) == prefix["estimatedTokens"]
    ops = prep.file_ops
    assert [sorted(ops.read), sorted(ops.written), sorted(ops.edited)] == [
        case["fileOps"]["read"], case["fileOps"]["written"], case["fileOps"]["edited"]]
    files = compute_file_lists(ops)
    assert files == {"readFiles": case["fileLists"]["readFiles"],
                     "modifiedFiles": case["fileLists"]["modifiedFiles"]}
    assert format_file_operations(files) == case["fileOperationsBlock"]
    assert digest(prep.messages_to_summarize) == case["serializedHistory"]
    assert digest(prep.turn_prefix_messages) == case["serializedTurnPrefix"]


@pytest.mark.parametrize("name", FIXTURES)
def test_preparation_matches_pi_on_the_v3_files(data_dir, name) -> None:
    ref = load(data_dir, name)
    for case in cases(ref):
        prep = prepare_compaction(ref.path(case.get("leafId")),
                                  CompactionSettings(keep_recent_tokens=case["keepRecentTokens"]))
        assert prep is None or prep.first_kept_entry_id == case["firstKeptEntryId"]
        check_against_pi(ref, prep, case)


@pytest.mark.parametrize("name", FIXTURES)
def test_preparation_matches_pi_on_the_v1_files_by_line(data_dir, name) -> None:
    ref = load(data_dir, name, v1=True)
    for case in cases(ref):
        leaf = ref.id_at(case["leafLine"]) if "leafLine" in case else None
        check_against_pi(ref, prepare_compaction(ref.path(leaf), CompactionSettings(
            keep_recent_tokens=case["keepRecentTokens"])), case)


@pytest.mark.parametrize("name", FIXTURES)
def test_serialisation_reproduces_pis_texts_byte_for_byte(data_dir, name) -> None:
    prep = prepare(load(data_dir, name).path(), 20_000)
    folder = data_dir / "pi-reference" / "expected" / "newest" / "serialized"
    for messages, kind in ((prep.messages_to_summarize, "history"),
                           (prep.turn_prefix_messages, "turn-prefix")):
        text = serialize_conversation(messages)
        assert text.encode("utf-8") == (folder / f"{name}.keep20000.{kind}.txt").read_bytes()


def test_preparation_matches_pi_on_the_synthetic_tree(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    paths = {"active": ref.path(), "branch1(a5)": ref.path(ref.expected["entryNames"]["a5"]["id"])}
    for case in ref.newest["prepareCompaction"]:
        check_against_pi(ref, prepare_compaction(paths[case["path"]], CompactionSettings(
            keep_recent_tokens=case["keepRecentTokens"])), case)


def test_nothing_is_prepared_when_the_path_ends_in_a_compaction(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    path = ref.path(ref.expected["entryNames"]["c1"]["id"])
    assert prepare_compaction(path, CompactionSettings()) is None
    assert prepare_compaction([], CompactionSettings()) is None


def test_pi_073_summarises_what_the_previous_compaction_kept_where_058_dropped_it(
        data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    old = ref.expected["prepareCompactionAtOtherLeaves"][1]  # leaf 627, after compaction 359
    new = ref.newest["prepareCompactionAtOtherLeaves"][1]
    path = ref.path(new["leafId"])
    prep = prepare(path, 20_000)
    # 0.58.3 started right after the compaction at line 359, although lines 293-358 were
    # still in the context: the next compaction neither kept nor summarised them.
    assert old["messagesToSummarize"]["entryRange"]["firstEntry"]["line"] == 360
    # 0.73 and 1.6 (and we) start at the compaction's first kept entry, line 293 ...
    first_kept = next(entry for entry in path if ref.line(entry.id) == 293)
    assert prep.messages_to_summarize[0] == first_kept.message
    # ... so 66 more messages are summarised ...
    assert len(prep.messages_to_summarize) == old["messagesToSummarize"]["count"] + 66
    # ... and on the main path, the files only those messages touched are listed too.
    old_main, new_main = ref.expected["prepareCompaction"][2], ref.newest["prepareCompaction"][2]
    config = "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/utils/config.ts"
    assert config in new_main["fileOps"]["read"] and config not in old_main["fileOps"]["read"]
    assert sorted(prepare(ref.path(), 20_000).file_ops.read) == new_main["fileOps"]["read"]


def test_tokens_before_distrusts_a_usage_measured_before_the_latest_compaction(
        tmp_path: Path) -> None:
    # A compaction kept a user message and a reply (with usage); one message came after.
    # 0.73 counted the reply's usage (1000) plus the new message; Pi 1.6 estimates every
    # message of the context, since that usage measured a context the compaction replaced.
    writer = SessionWriter.create(tmp_path / "s.jsonl", SessionHeader(
        version=3, id="s", timestamp="2026-01-01T00:00:00.000Z", cwd="/"),
        ids=sequential_ids(), clock=fixed_clock(0))
    kept = writer.append_message(UserMessage(content="x" * 400, timestamp=0))
    writer.append_message(AssistantMessage(
        content=(TextContent(text="ok"),), api="a", provider="p", model="m", timestamp=0,
        usage=Usage.zero().model_copy(update={"input": 1000, "total_tokens": 1000}),
        stop_reason="stop"))
    writer.append_compaction("summary", kept, 5000, None)
    writer.append_message(UserMessage(content="y" * 40, timestamp=0))
    messages = list(build_context(writer.tree, writer.leaf_id).messages)
    assert estimate_context_tokens(messages).tokens == 1000 + 10
    assert prepare(writer.tree.path_to(writer.leaf_id), 5).tokens_before == 2 + 100 + 1 + 10


def test_a_context_edit_after_the_last_reply_makes_tokens_before_an_estimate_of_the_edits(
        tmp_path: Path) -> None:
    # Pi 1.6: the reply's usage measured the context before the edit, so every message of
    # the edited context is estimated; what is summarised is what the model now sees.
    writer = SessionWriter.create(tmp_path / "s.jsonl", SessionHeader(
        version=3, id="s", timestamp="2026-01-01T00:00:00.000Z", cwd="/"),
        ids=sequential_ids(), clock=fixed_clock(0))
    first = writer.append_message(UserMessage(content="x" * 400, timestamp=0))
    writer.append_message(AssistantMessage(
        content=(TextContent(text="ok"),), api="a", provider="p", model="m", timestamp=0,
        usage=Usage.zero().model_copy(update={"input": 1000, "total_tokens": 1000}),
        stop_reason="stop"))
    writer.append_message(UserMessage(content="y" * 40, timestamp=0))
    writer.append_context_edit(first, "short")
    prep = prepare(writer.tree.path_to(writer.leaf_id), 5)
    assert prep.tokens_before == 2 + 1 + 10
    assert [m.content for m in prep.messages_to_summarize[:1]] == ["short"]
    writer.append_context_edit(first, None)  # left out: nothing before the kept prompt
    assert prepare_compaction(writer.tree.path_to(writer.leaf_id),
                              CompactionSettings(keep_recent_tokens=5)).messages_to_summarize[
        0].role == "assistant"


def test_a_reply_left_out_for_a_retry_is_where_the_kept_part_starts(tmp_path: Path) -> None:
    # Pi 1.6's findProjectedCutPoint: when only a failed attempt that a context edit left out
    # follows the cut, the cut moves onto that attempt; the prompt it answered becomes a
    # split turn's first half.
    writer = SessionWriter.create(tmp_path / "s.jsonl", SessionHeader(
        version=3, id="s", timestamp="2026-01-01T00:00:00.000Z", cwd="/"),
        ids=sequential_ids(), clock=fixed_clock(0))

    def reply(text: str) -> str:
        return writer.append_message(AssistantMessage(
            content=(TextContent(text=text),), api="a", provider="p", model="m", timestamp=0,
            usage=Usage.zero(), stop_reason="stop"))

    writer.append_message(UserMessage(content="x" * 40, timestamp=0))
    reply("ok")
    writer.append_message(UserMessage(content="y" * 40, timestamp=0))
    attempt = reply("a failed attempt")
    writer.append_context_edit(attempt, None)
    prep = prepare(writer.tree.path_to(writer.leaf_id), 1)
    assert (prep.first_kept_entry_id, prep.is_split_turn) == (attempt, True)
    assert [m.role for m in prep.turn_prefix_messages] == ["user"]
    first = writer.tree.path_to(writer.leaf_id)[0].id
    writer.append_context_edit(first, "an edit of something still shown: not a retry")
    prep = prepare(writer.tree.path_to(writer.leaf_id), 1)
    assert prep.first_kept_entry_id != attempt and not prep.is_split_turn


def test_the_prompt_is_estimated_once_as_every_system_message_adds_up(tmp_path: Path) -> None:
    from pi.ai import SystemMessage, Tool
    from pi.ai.messages import ToolReference
    from pi.coding_agent.compaction.utils import projected_tokens

    writer = SessionWriter.create(tmp_path / "s.jsonl", SessionHeader(
        version=3, id="s", timestamp="2026-01-01T00:00:00.000Z", cwd="/"),
        ids=sequential_ids(), clock=fixed_clock(0))
    ls = Tool(name="ls", description="list", parameters={})
    writer.append_message(SystemMessage(content="a" * 40, sections={"s": "b" * 8},
                                        tools_added=(ls,), timestamp=0))
    question = writer.append_message(UserMessage(content="u" * 40, timestamp=0))
    writer.append_message(AssistantMessage(
        content=(TextContent(text="ok"),), api="a", provider="p", model="m", timestamp=0,
        usage=Usage.zero().model_copy(update={"input": 1000, "total_tokens": 1000}),
        stop_reason="stop"))
    writer.append_message(SystemMessage(content="c" * 4, sections={"s": None},
                                        tools_removed=(ToolReference(name="ls"),), timestamp=0))
    writer.append_context_edit(question, "x" * 8)  # the reply's usage no longer holds
    # the prompt as both messages add up: 40 + "\n\n" + 4 characters, no section, no tool
    assert projected_tokens(writer.tree.path_to(writer.leaf_id)) == 12 + 2 + 1


def test_a_long_tool_result_is_cut_for_the_summary_between_characters_never_inside_one() -> None:
    # Pi's sliceHead: an emoji (two UTF-16 units) astride the cut at 2,000 is left out whole;
    # half of it, a lone surrogate, is no valid text for a provider or a UTF-8 terminal.
    output = "x" * 1999 + "\N{GRINNING FACE}" + "y" * 100
    result = ToolResultMessage(tool_call_id="c1", tool_name="read",
                               content=[TextContent(text=output)], is_error=False, timestamp=0)
    text = serialize_conversation([result])
    assert "x" * 1999 + "\n\n[... 101 more characters truncated]" in text
    text.encode("utf-8")  # raises on a lone surrogate
