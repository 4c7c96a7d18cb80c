"""Cut points land where Pi's do, on real sessions and on a branched tree."""

from __future__ import annotations

import pytest
from compaction_reference import load

from pi.ai import TextContent, ToolResultMessage, UserMessage
from pi.coding_agent.compaction.cut_points import (
    CutPoint,
    cut_point,
    find_cut_point,
    find_turn_start_index,
)
from pi.coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    SessionEntry,
)
from pi.coding_agent.session.tree import SessionTree

STEP = 10
TS = "2026-01-01T00:00:00.000Z"


def user(ident: str, tokens: int = 10) -> MessageEntry:
    """A user message of exactly `tokens` estimated tokens (four characters each)."""
    message = UserMessage(content="u" * (4 * tokens), timestamp=0)
    return MessageEntry(id=ident, parent_id=None, timestamp=TS, message=message)


def tool_result(ident: str, tokens: int = 10) -> MessageEntry:
    message = ToolResultMessage(tool_call_id="c", tool_name="ls", is_error=False, timestamp=0,
                                content=(TextContent(text="r" * (4 * tokens)),))
    return MessageEntry(id=ident, parent_id=None, timestamp=TS, message=message)


def chained(entries: list[SessionEntry]) -> list[SessionEntry]:
    """The same entries as a path from a tree: ids e0, e1, …, each the parent of the next."""
    tree = SessionTree()
    for i, entry in enumerate(entries):
        tree.add(entry.model_copy(update={"id": f"e{i}", "parent_id": f"e{i - 1}" if i else None}))
    return tree.path_to(f"e{len(entries) - 1}")


def label(ident: str) -> LabelEntry:
    return LabelEntry(id=ident, parent_id=None, timestamp=TS, target_id="a", label="mark")
FIXTURES = ["large-session", "before-compaction"]


@pytest.mark.parametrize("name", FIXTURES)
def test_cut_points_match_pi_on_the_v3_files_by_id(data_dir, name) -> None:
    ref = load(data_dir, name)
    path = ref.path()
    for case in ref.newest["findCutPoint"]:
        cut = find_cut_point(path, case["startIndex"], case["endIndex"], case["keepRecentTokens"])
        assert path[cut.first_kept_entry_index].id == case["firstKeptEntry"]["id"], case
        assert cut.turn_start_index == case["turnStartIndex"]
        assert cut.is_split_turn == case["isSplitTurn"]


@pytest.mark.parametrize("name", FIXTURES)
def test_a_path_from_the_tree_cuts_where_a_list_of_its_entries_cuts(data_dir, name) -> None:
    path = load(data_dir, name).path()
    entries = list(path)
    for keep in (1, 500, 20_000, 10**9):
        for start in (0, len(path) // 2):
            assert find_cut_point(path, start, len(path), keep) == find_cut_point(
                entries, start, len(entries), keep), (keep, start)


@pytest.mark.parametrize("name", FIXTURES)
def test_cut_points_match_pi_on_the_v1_files_by_line(data_dir, name) -> None:
    ref = load(data_dir, name, v1=True)
    path = ref.path()
    for case in ref.newest["findCutPoint"]:
        cut = find_cut_point(path, case["startIndex"], case["endIndex"], case["keepRecentTokens"])
        assert ref.line(path[cut.first_kept_entry_index].id) == case["firstKeptEntry"]["line"]
        if case["isSplitTurn"]:
            assert ref.line(path[cut.turn_start_index].id) == case["turnStartEntry"]["line"]


def test_cut_points_match_pi_on_the_synthetic_tree(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    paths = {"activePath": ref.path(), "branch1Path(a5)": ref.path(
        ref.expected["entryNames"]["a5"]["id"])}
    for case in ref.newest["findCutPoint"]:
        path = paths[case["mode"].rsplit("-", 1)[0]]
        cut = find_cut_point(path, case["startIndex"], case["endIndex"], case["keepRecentTokens"])
        assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (
            case["firstKeptEntryIndex"], case["turnStartIndex"], case["isSplitTurn"]), case


def test_a_cut_never_lands_on_a_tool_result(data_dir) -> None:
    path = load(data_dir, "large-session").path()
    for keep in range(500, 60_000, 2_500):
        cut = find_cut_point(path, 0, len(path), keep)
        entry = path[cut.first_kept_entry_index]
        assert getattr(entry, "message", None) is None or entry.message.role != "toolResult"


def test_a_cut_at_a_bash_execution_starts_a_turn_and_splits_nothing(data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    path = ref.path()
    cut = find_cut_point(path, 628, len(path), 1000)
    assert ref.line(path[cut.first_kept_entry_index].id) == 1001
    assert path[cut.first_kept_entry_index].message.role == "bashExecution"
    assert cut == CutPoint(cut.first_kept_entry_index, -1, False)  # Pi 0.73: a split turn


def test_settings_entries_just_before_the_cut_are_kept_with_it(data_dir) -> None:
    ref = load(data_dir, "synthetic-tree")
    path = ref.path(ref.expected["entryNames"]["a5"]["id"])
    cut = find_cut_point(path, 0, len(path), 20_000)  # budget never reached: keep everything
    assert cut.first_kept_entry_index == 0 and path[0].type == "model_change"
    assert not cut.is_split_turn


def test_no_cut_point_keeps_everything_from_the_start() -> None:
    assert find_cut_point([], 0, 0, 100).first_kept_entry_index == 0
    assert find_turn_start_index([], -1, 0) == -1
    only_results = [tool_result("r0"), tool_result("r1"), label("l2")]
    assert find_cut_point(only_results, 0, 3, 5) == CutPoint(0, -1, False)
    assert find_cut_point(only_results, 1, 3, 5) == CutPoint(1, -1, False)


def test_when_everything_fits_the_cut_is_the_first_cut_point_never_a_tool_result() -> None:
    path = chained([tool_result("r0"), user("u1"), tool_result("r2")])
    assert find_cut_point(path, 0, 3, 1_000) == CutPoint(1, -1, False)


@pytest.mark.parametrize(("keep", "kept_from"), [(10, 2), (11, 1), (20, 1), (21, 0)])
def test_the_cut_lands_on_the_entry_where_the_budget_is_first_reached(keep, kept_from) -> None:
    path = [user("a"), user("b"), user("c")]  # 10 tokens each, counted from the newest
    assert find_cut_point(path, 0, 3, keep) == CutPoint(kept_from, -1, False)


def test_the_cut_steps_back_over_every_non_message_entry_before_it() -> None:
    path = [user("a"), user("b"), label("l2"), label("l3"), label("l4"), user("c")]
    assert find_cut_point(path, 0, 6, 10) == CutPoint(2, 1, True), "labels stay with c"


def test_stepping_back_stops_at_the_start_of_the_range() -> None:
    path = [label("l0"), user("a"), label("l2")]
    assert find_cut_point(path, 0, 3, 10) == CutPoint(0, -1, False)
    later = [label("l0"), label("l1"), user("a")]
    assert find_cut_point(later, 1, 3, 10) == CutPoint(1, -1, False), "l0 is before the range"


@pytest.mark.parametrize("entry", [
    BranchSummaryEntry(id="s", parent_id=None, timestamp=TS, from_id="a", summary="left"),
    CustomMessageEntry(id="s", parent_id=None, timestamp=TS, custom_type="note", content="hi",
                       display=True),
], ids=["branch_summary", "custom_message"])
def test_a_branch_summary_or_an_extension_message_starts_the_kept_part_and_a_turn(entry) -> None:
    entries = [tool_result("r0"), entry, tool_result("r2")]
    for path in (entries, chained(entries)):  # a tree's path answers from its nodes
        assert find_cut_point(path, 0, 3, 5) == CutPoint(1, -1, False)


def test_a_budget_reached_after_the_last_cut_point_cuts_at_the_last_one() -> None:
    path = [user("a"), user("b"), tool_result("r2", tokens=50)]
    assert find_cut_point(path, 0, 3, 5) == CutPoint(1, -1, False)  # Pi 0.73: at a, the first


def test_every_entry_that_shows_a_message_counts_towards_the_budget() -> None:
    summary = BranchSummaryEntry(id="s", parent_id=None, timestamp=TS, from_id="a",
                                 summary="s" * 40)
    path = [user("a"), summary, user("b", tokens=1)]
    assert find_cut_point(path, 0, 3, 11) == CutPoint(1, -1, False)  # 1 + 10 of the summary


def test_a_compaction_before_the_cut_stops_the_step_back_but_is_never_a_cut_point() -> None:
    compaction = CompactionEntry(id="c", parent_id=None, timestamp=TS, summary="old",
                                 first_kept_entry_id="a", tokens_before=5)
    path = [compaction, label("l1"), user("a")]
    assert find_cut_point(path, 0, 3, 10) == CutPoint(1, -1, False)
    assert find_cut_point([compaction, tool_result("r")], 0, 2, 1) == CutPoint(0, -1, False)


@pytest.mark.parametrize("message", [
    CustomMessage(custom_type="note", content="hi", display=True, timestamp=0),
    BranchSummaryMessage(summary="left", from_id="a", timestamp=0),
    CompactionSummaryMessage(summary="older", tokens_before=9, timestamp=0),
    BashExecutionMessage(command="ls", output="a", cancelled=False, truncated=False, timestamp=0),
], ids=lambda m: m.role)
def test_every_message_role_but_a_tool_result_may_begin_the_kept_part(message) -> None:
    entry = MessageEntry(id="m", parent_id=None, timestamp=TS, message=message)
    entries = [tool_result("r0"), entry, tool_result("r2")]
    for path in (entries, chained(entries)):
        assert find_cut_point(path, 0, 3, 5).first_kept_entry_index == 1


def test_an_unknown_entry_is_no_cut_point_and_stays_with_the_cut_like_pi() -> None:
    """Pi's findCutPoint: only message, custom_message and branch_summary entries may start
    the kept part; walking back from the cut, anything but a message or a compaction joins it."""
    from pi.ai import UserMessage
    from pi.coding_agent.session.entries import MessageEntry, UnknownEntry

    def user(id: str, text: str) -> MessageEntry:
        return MessageEntry(id=id, parent_id=None, timestamp="t",
                            message=UserMessage(content=text, timestamp=0))

    other = UnknownEntry(id="x", parent_id=None, timestamp="t", type="bookmark")
    path = [user("a", "x" * 400), other, user("b", "y" * 40)]
    cut = find_cut_point(path, 0, len(path), 10)  # real Pi 0.73.1: {1, 0, isSplitTurn: true}
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (1, 0, True)
    cut = find_cut_point([other], 0, 1, 10)  # real Pi: {0, -1, false}
    assert (cut.first_kept_entry_index, cut.is_split_turn) == (0, False)


def test_the_prompt_a_compaction_recorded_counts_towards_the_budget_on_a_raw_path() -> None:
    from pi.ai import SystemMessage

    compaction = CompactionEntry(id="c", parent_id=None, timestamp=TS, summary="old",
                                 first_kept_entry_id="a", tokens_before=5)
    prompt = SystemMessage(content="p" * 160, timestamp=0)  # 40 tokens
    recorded = compaction.model_copy(update={"system_message": prompt})
    assert find_cut_point([user("a"), compaction, user("b")], 0, 3, 30) == CutPoint(0, -1, False)
    assert find_cut_point([user("a"), recorded, user("b")], 0, 3, 30) == CutPoint(2, -1, False)


def test_an_older_compaction_that_shows_nothing_still_stops_the_step_back() -> None:
    older = CompactionEntry(id="c", parent_id=None, timestamp=TS, summary="old",
                            first_kept_entry_id="a", tokens_before=5)
    kept = user("a")
    assert cut_point([(older, ()), (kept, (kept.message,))], 0, 2, 1) == CutPoint(1, -1, False)


@pytest.mark.parametrize("message", [
    CustomMessage(custom_type="note", content="hi", display=True, timestamp=0),
    CompactionSummaryMessage(summary="older", tokens_before=9, timestamp=0),
], ids=lambda m: m.role)
def test_a_cut_at_an_extension_or_summary_message_starts_a_turn_after_a_users(message) -> None:
    entry = MessageEntry(id="m", parent_id=None, timestamp=TS, message=message)
    path = [user("a"), entry, tool_result("r2")]
    assert find_cut_point(path, 0, 3, 5) == CutPoint(1, -1, False)  # Pi 0.73: split at a
