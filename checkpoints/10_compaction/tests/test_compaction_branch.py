"""Leaving a branch collects, trims and summarises its entries as Pi does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from compaction_reference import MOCK, Recorder, describe_prompt, load

from mock_model import MockModel, fail, text, turn
from pi.ai import (
    AbortController,
    AssistantMessage,
    Cost,
    Model,
    StreamOptions,
    TextContent,
    ToolCall,
    Usage,
    UserMessage,
)
from pi.coding_agent.compaction.branch import (
    BranchSummary,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi.coding_agent.compaction.prompts import BRANCH_PREAMBLE
from pi.coding_agent.compaction.utils import SummaryError, SummaryRetry, compute_file_lists
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.writer import SessionWriter

STEP = 10


def navigations(data_dir: Any) -> list[tuple[Any, Any, dict[str, Any]]]:
    ref = load(data_dir, "synthetic-tree")
    found = []
    for case in ref.expected["branchNavigation"]:
        collected = collect_entries_for_branch_summary(
            ref.path(case["from"]["id"]), ref.path(case["to"]["id"]))
        found.append((ref, collected, case))
    return found


def test_entries_are_collected_back_to_the_deepest_common_ancestor(data_dir) -> None:
    for _ref, collected, case in navigations(data_dir):
        ancestor = case["commonAncestor"]["id"] if case["commonAncestor"] else None
        assert collected.common_ancestor_id == ancestor
        assert [e.id for e in collected.entries] == [e["id"] for e in case["entries"]]


def test_budgeted_preparation_matches_pi(data_dir) -> None:
    for _ref, collected, case in navigations(data_dir):
        for expected in case["prepareBranchEntries"]:
            prep = prepare_branch_entries(collected.entries, expected["tokenBudget"])
            assert [m.role for m in prep.messages] == expected["roles"], expected
            assert prep.total_tokens == expected["totalTokens"]
            ops = prep.file_ops
            assert [sorted(ops.read), sorted(ops.written), sorted(ops.edited)] == [
                expected["fileOps"]["read"], expected["fileOps"]["written"],
                expected["fileOps"]["edited"]]
            assert compute_file_lists(ops) == {
                "readFiles": expected["fileLists"]["readFiles"],
                "modifiedFiles": expected["fileLists"]["modifiedFiles"]}


def test_a_summary_entry_may_overshoot_the_budget_below_ninety_percent(data_dir) -> None:
    _ref, collected, _case = navigations(data_dir)[1]  # a12 -> a5: crosses the compaction
    prep = prepare_branch_entries(collected.entries, 60)
    assert prep.messages[0].role == "compactionSummary" and prep.total_tokens == 65 > 60


def summarise(entries: list[Any], recorder: Recorder, model: Model = MOCK,
              **options: Any) -> BranchSummary | SummaryError:
    return asyncio.run(generate_branch_summary(entries, model, recorder.stream, **options))


def test_the_summary_is_preamble_answer_and_file_lists(data_dir) -> None:
    _ref, collected, _case = navigations(data_dir)[0]  # a5 -> u6
    recorder = Recorder(MockModel([turn(text("## Goal\nA test file"))]))
    summary = summarise(collected.entries, recorder)
    assert isinstance(summary, BranchSummary)
    assert summary.summary == (BRANCH_PREAMBLE + "## Goal\nA test file\n\n<read-files>\n"
                               "diagram.png\nhello.py\n</read-files>\n\n<modified-files>\n"
                               "test_hello.py\n</modified-files>")
    (context, options), = recorder.calls
    assert options.max_tokens is None and getattr(options, "reasoning", None) is None
    shape = describe_prompt(context.messages[0].content[0].text)
    assert shape["previousSummarySha256"] is None and "## Critical Context" not in shape[
        "instructionHeadings"]
    assert shape["instructionHeadings"][:3] == ["## Goal", "## Constraints & Preferences",
                                                 "## Progress"]


def test_focus_is_appended_or_replaces_the_instructions(data_dir) -> None:
    _ref, collected, _case = navigations(data_dir)[0]
    recorder = Recorder(MockModel([turn(text("a")), turn(text("b"))]))
    summarise(collected.entries, recorder, focus="the image")
    summarise(collected.entries, recorder, focus="Just list the files.",
              replace_instructions=True)
    first, second = (c.messages[0].content[0].text for c, _ in recorder.calls)
    assert first.endswith("\n\nAdditional focus: the image")
    assert second.endswith("</conversation>\n\nJust list the files.")


def test_nothing_to_summarise_asks_no_model(data_dir) -> None:
    _ref, collected, _case = navigations(data_dir)[4]  # a5 -> a5
    recorder = Recorder(MockModel([]))
    summary = summarise(collected.entries, recorder)
    assert summary == BranchSummary("No content to summarize",
                                   {"readFiles": [], "modifiedFiles": []})
    assert recorder.calls == []


@pytest.mark.parametrize("reply, reason", [(fail("rate_limit"), "error"),
                                           (turn(text("cut"), stop_reason="length"), "length")])
def test_a_failed_branch_summary_is_an_error_value_in_pis_words(data_dir, reply,
                                                                reason) -> None:
    _ref, collected, _case = navigations(data_dir)[0]
    summary = summarise(collected.entries, Recorder(MockModel([reply])))
    assert isinstance(summary, SummaryError) and summary.reason == reason
    assert summary.text.startswith("Branch summarization failed: ")


def test_a_branch_summary_that_fails_transiently_is_asked_again_after_each_wait(
        data_dir) -> None:
    """Pi's `retryAssistantCall`: only what the caller calls transient, at most once a wait."""
    _ref, collected, _case = navigations(data_dir)[0]
    waits: list[int] = []

    async def sleep(ms: int) -> None:
        waits.append(ms)

    def transient(reply: AssistantMessage, window: int) -> bool:
        return reply.stop_reason == "error" and "rate" in (reply.error_message or "")

    retry = SummaryRetry(transient, [1, 2, 4], sleep)
    recorder = Recorder(MockModel([fail("rate_limit"), fail("rate_limit"), turn(text("ok"))]))
    summary = summarise(collected.entries, recorder, retry=retry)
    assert isinstance(summary, BranchSummary) and "ok" in summary.summary
    assert waits == [1, 2] and len(recorder.calls) == 3
    recorder = Recorder(MockModel([fail("rate_limit")] * 3 + [fail("server_error")]))
    summary = summarise(collected.entries, recorder, retry=retry)
    assert isinstance(summary, SummaryError) and waits == [1, 2, 1, 2, 4]
    assert len(recorder.calls) == 4, "three retries, then the last failure is the answer"
    recorder = Recorder(MockModel([fail("server_error"), turn(text("never asked"))]))
    assert isinstance(summarise(collected.entries, recorder, retry=retry), SummaryError)
    assert len(recorder.calls) == 1, "a failure the caller does not call transient: no retry"


def test_an_aborted_branch_summary_is_an_error_value(data_dir) -> None:
    _ref, collected, _case = navigations(data_dir)[0]
    controller = AbortController()
    controller.abort()
    summary = summarise(collected.entries, Recorder(),
                        options=StreamOptions(signal=controller.signal))
    assert isinstance(summary, SummaryError) and summary.reason == "aborted"


def test_the_summary_is_recorded_at_the_new_position(data_dir, tmp_path) -> None:
    ref, _collected, case = navigations(data_dir)[0]  # a5 -> u6: the new leaf is u6's parent
    copy = tmp_path / "tree.jsonl"
    copy.write_bytes(ref.session.path.read_bytes())
    new_leaf = ref.path(case["to"]["id"])[-2].id
    summary = BranchSummary("explored tests",
                            {"readFiles": ["diagram.png"], "modifiedFiles": ["test_hello.py"]})
    writer = SessionWriter.resume(read_session(copy), ids=sequential_ids(), clock=fixed_clock(0))
    entry_id = writer.branch_with_summary(new_leaf, summary.summary, summary.details)
    writer.close()
    tree = read_session(copy).tree
    entry = tree.by_id[entry_id]
    assert (entry.parent_id, entry.from_id) == (new_leaf, new_leaf)
    assert entry.details == {"readFiles": ["diagram.png"], "modifiedFiles": ["test_hello.py"]}
    assert build_context(tree, entry_id).messages[-1].role == "branchSummary"
    assert len(tree.entries) == len(ref.session.entries) + 1


def test_a_branch_is_summarised_as_its_context_edits_left_it(tmp_path) -> None:
    # Pi 1.6 honours the latest edit of each entry: a hidden prompt reaches no summariser.
    w = start_session(tmp_path, "/work/app", "s", ids=sequential_ids(), clock=fixed_clock(0))
    secret = w.append_message(UserMessage(content="SECRET token abc", timestamp=0))
    long_reply = w.append_message(AssistantMessage(
        content=[TextContent(text="a very long answer"), ToolCall(
            id="c1", name="read", arguments={"path": "src/x.py"})],
        provider="mock", model="mock-1", api="mock", stop_reason="toolUse", usage=Usage(
            input=5, output=1, cache_read=0, cache_write=0, total_tokens=6,
            cost=Cost(input=0, output=0, cache_read=0, cache_write=0, total=0)),
        timestamp=0))
    w.append_context_edit(secret, None)
    w.append_context_edit(long_reply, "REPLACED reply")
    prep = prepare_branch_entries(w.tree.path_to(w.leaf_id))
    assert [(m.role, m.content) for m in prep.messages] == [
        ("assistant", (TextContent(text="REPLACED reply"),))]
    assert compute_file_lists(prep.file_ops) == {"readFiles": [], "modifiedFiles": []}
