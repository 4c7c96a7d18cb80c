"""Summary requests have Pi's structure, and a failed summary records nothing.

Pi's reference run answered every summary call with a placeholder; the MockModel does the
same here, so the assembled summary must equal Pi's text exactly. Prompts are compared on
structure only (the instruction wording is ours): output cap, reasoning, the serialised
conversation's hash, the previous-summary block, headings, the additional-focus line.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest
from compaction_reference import MOCK, THINKER, Recorder, load, pi_call_structure

from mock_model import MockModel, fail, text, tool_call, turn
from pi.ai import AbortController, Model, StreamOptions
from pi.coding_agent.compaction.compact import (
    CompactionPreparation,
    CompactionResult,
    compact,
    prepare_compaction,
)
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.compaction.utils import SummaryError
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import CompactionEntry, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.writer import SessionWriter

STEP = 10


def prepared(path: list[Any], keep: int = 20_000, reserve: int = 16_384
             ) -> CompactionPreparation:
    settings = CompactionSettings(reserve_tokens=reserve, keep_recent_tokens=keep)
    prep = prepare_compaction(path, settings)
    assert prep is not None
    return prep


def run(prep: CompactionPreparation, model: Model = MOCK, focus: str | None = None,
        recorder: Recorder | None = None, options: StreamOptions | None = None,
        thinking: str | None = None) -> tuple[CompactionResult | SummaryError, Recorder]:
    recorder = recorder or Recorder()
    result = asyncio.run(compact(prep, model, recorder.stream, focus, options, thinking))
    return result, recorder


def dry_run_cases(data_dir: Any, v1: bool = False) -> list[tuple[Any, list[Any], dict[str, Any]]]:
    """(reference, path, case) for every dry run the pinned newest Pi recorded; v1: the two
    fixtures' originals."""
    found = []
    for name in ("large-session", "before-compaction") + (() if v1 else ("synthetic-tree",)):
        ref = load(data_dir, name, v1)
        a5 = ref.expected.get("entryNames", {}).get("a5", {}).get("id")
        for case in ref.newest["prepareCompaction"]:
            if "compactDryRun" in case:
                path = ref.path(a5 if case.get("path") == "branch1(a5)" else None)
                found.append((ref, path, case))
    return found


@pytest.mark.parametrize("v1", [False, True])
def test_summary_requests_and_results_match_pis_dry_runs(data_dir, v1) -> None:
    checked = 0
    for ref, path, case in dry_run_cases(data_dir, v1):
        result, recorder = run(prepared(path, case["keepRecentTokens"]))
        dry = case["compactDryRun"]
        assert recorder.structures() == [pi_call_structure(c) for c in dry["llmCalls"]]
        assert isinstance(result, CompactionResult)
        assert result.summary == dry["result"]["summary"]
        assert ref.line(result.first_kept_entry_id) == case["firstKeptEntry"]["line"]
        assert v1 or result.first_kept_entry_id == dry["result"]["firstKeptEntryId"]
        assert result.tokens_before == dry["result"]["tokensBefore"]
        assert result.details == dry["result"]["details"]
        checked += 1
    assert checked == (2 if v1 else 5)


def test_a_reasoning_model_thinks_at_the_sessions_level_on_every_call(data_dir) -> None:
    path = load(data_dir, "large-session").path()
    _, recorder = run(prepared(path), THINKER, thinking="medium")
    assert [getattr(o, "reasoning", None) for _, o in recorder.calls] == ["medium", "medium"]
    _, recorder = run(prepared(path), THINKER, thinking="off")
    assert [getattr(o, "reasoning", None) for _, o in recorder.calls] == [None, None]
    _, recorder = run(prepared(path), MOCK, thinking="high")  # the model does not reason
    assert [getattr(o, "reasoning", None) for _, o in recorder.calls] == [None, None]


def test_a_split_turn_without_older_history_keeps_the_previous_summary_as_it_is(
        data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    prep = replace(prepared(ref.path(), 1), messages_to_summarize=[])
    assert prep.previous_summary and prep.is_split_turn
    result, recorder = run(prep)
    assert len(recorder.calls) == 1  # only the turn prefix is summarised (Pi 1.6)
    assert isinstance(result, CompactionResult)
    assert result.summary.startswith(
        prep.previous_summary + "\n\n---\n\n**Turn Context (split turn):**\n\n")


def test_a_split_first_turn_has_no_prior_history_as_in_pi(data_dir) -> None:
    turn_two = load(data_dir, "large-session").path()[3:16]  # one user turn, no older history
    prep = prepared(turn_two, 300)
    assert prep.is_split_turn and prep.messages_to_summarize == [] and not prep.previous_summary
    result, recorder = run(prep)
    assert len(recorder.calls) == 1  # only the turn prefix is summarised
    assert isinstance(result, CompactionResult)
    assert result.summary.startswith("No prior history.\n\n---\n\n**Turn Context (split turn):**")


def test_additional_focus_goes_to_both_calls(data_dir) -> None:
    ref = load(data_dir, "large-session")
    _, recorder = run(prepared(ref.path()), focus="the theme work")
    assert [s["hasAdditionalFocusLine"] for s in recorder.structures()] == [True, True]
    for context, _ in recorder.calls:
        assert context.messages[0].content[0].text.endswith("\n\nAdditional focus: the theme work")


def test_summary_calls_ask_for_no_output_cap_of_their_own(data_dir) -> None:
    path = load(data_dir, "large-session").path()
    _, recorder = run(prepared(path), options=StreamOptions(max_tokens=100))
    assert [o.max_tokens for _, o in recorder.calls] == [None, None]


def test_the_result_carries_what_both_summary_calls_used(data_dir) -> None:
    recorder = Recorder(MockModel([turn(text("history"), usage={"input": 100, "output": 7}),
                                   turn(text("prefix"), usage={"input": 20, "output": 3})]))
    result, _ = run(prepared(load(data_dir, "large-session").path()), recorder=recorder)
    assert isinstance(result, CompactionResult) and result.usage is not None
    assert (result.usage.input, result.usage.output) == (120, 10)


def test_a_summary_that_calls_a_tool_is_an_error_value_in_pis_words(data_dir) -> None:
    recorder = Recorder(MockModel([turn(tool_call("read", {"path": "a.py"}))]))
    result, _ = run(prepared(load(data_dir, "synthetic-tree").path(), 50), recorder=recorder)
    assert result == SummaryError("error", "Turn prefix summarization attempted to call a tool")


@pytest.mark.parametrize("reply, error", [
    (fail("server_error", message="boom"),
     SummaryError("error", "Turn prefix summarization failed: boom")),
    (turn(text("## Goal\nhalf a sum"), stop_reason="length"), SummaryError(
        "length", "Turn prefix summarization failed: generation hit the token cap and the "
                  "summary is incomplete")),
])
def test_a_failed_or_cut_off_summary_is_an_error_value_in_pis_words(data_dir, reply,
                                                                     error) -> None:
    path = load(data_dir, "synthetic-tree").path()
    recorder = Recorder(MockModel([reply]))
    result, _ = run(prepared(path, 50), recorder=recorder)
    assert result == error


def test_one_failed_call_of_a_split_turn_fails_the_whole_compaction(data_dir) -> None:
    path = load(data_dir, "large-session").path()
    recorder = Recorder(MockModel([turn(text("history")), fail("overloaded", message="busy")]))
    result, recorder = run(prepared(path), recorder=recorder)
    assert len(recorder.calls) == 2
    assert result == SummaryError("error", "Turn prefix summarization failed: busy")


def test_an_aborted_compaction_is_an_error_value(data_dir) -> None:
    controller = AbortController()
    controller.abort()
    result, _ = run(prepared(load(data_dir, "synthetic-tree").path(), 50),
                    options=StreamOptions(signal=controller.signal))
    assert isinstance(result, SummaryError) and result.reason == "aborted"


def test_the_entry_replaces_the_summarised_part_and_nothing_is_removed(
    data_dir, tmp_path
) -> None:
    source = data_dir / "pi-reference" / "sessions" / "large-session.v3.jsonl"
    copy = tmp_path / "session.jsonl"
    copy.write_bytes(source.read_bytes())
    path = read_session(copy).tree.path_to("b944ad81")
    result, _ = run(prepared(path))
    assert isinstance(result, CompactionResult)
    writer = SessionWriter.resume(read_session(copy), ids=sequential_ids(),
                                  clock=fixed_clock(1_767_225_600_000))
    entry_id = writer.append_compaction(result.summary, result.first_kept_entry_id,
                                        result.tokens_before, result.details)
    writer.close()
    assert copy.read_bytes().startswith(source.read_bytes())  # every old line, unchanged
    tree = read_session(copy).tree
    entry = tree.by_id[entry_id]
    assert isinstance(entry, CompactionEntry) and entry.details == result.details
    assert len(tree.entries) == len(path) + 1
    context = build_context(tree, entry_id)
    ids = [e.id for e in path]
    kept = ids[ids.index(result.first_kept_entry_id):]  # the kept part holds only messages
    assert context.messages[0].role == "compactionSummary"
    assert list(context.entry_ids) == [entry_id, *kept]
