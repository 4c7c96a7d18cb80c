"""The session tree: Pi's getTree order, global labels and name, paths to the root."""

import json
from pathlib import Path

import pytest

from course.session_view import tree_rows
from pi.coding_agent.session.entries import (
    LabelEntry,
    SessionEntry,
    SessionError,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.tree import SessionTree

STEP = 9


def entry(id: str, parent: str | None, time: str = "2026-01-01T00:00:00.000Z") -> SessionEntry:
    return ThinkingLevelChangeEntry(id=id, parent_id=parent, timestamp=time, thinking_level="low")


def label(id: str, parent: str | None, target: str, text: str | None) -> LabelEntry:
    return LabelEntry(id=id, parent_id=parent, timestamp="2026-01-01T00:00:00.000Z",
                      target_id=target, label=text)


def synthetic(data_dir: Path) -> tuple[SessionTree, dict]:
    want = json.loads((data_dir / "pi-reference/expected/synthetic-tree.json").read_text())
    return read_session(data_dir / "pi-reference/sessions/synthetic-tree.v3.jsonl").tree, want


def depth_first(tree: SessionTree) -> list[tuple[int, SessionEntry]]:
    """(depth, entry) in the tree view's order, which is Pi's `getTree` order."""
    return [(len(tree.path_to(e.id)) - 1, e) for _, e in tree_rows(tree)]


def test_the_synthetic_tree_walks_in_pis_order(data_dir: Path) -> None:
    tree, want = synthetic(data_dir)
    name_of = {v["id"]: name for name, v in want["entryNames"].items()}
    ours = [{"depth": depth, "id": e.id, "name": name_of[e.id], "type": e.type,
             "label": tree.labels.get(e.id),
             "children": [name_of[kid.id] for kid in tree.children(e.id)]}
            for depth, e in depth_first(tree)]
    assert ours == want["tree"]["nodes"]
    assert len(tree.children(None)) == want["tree"]["rootCount"]


def test_labels_name_and_leaf_are_pis(data_dir: Path) -> None:
    tree, want = synthetic(data_dir)
    name_of = {v["id"]: name for name, v in want["entryNames"].items()}
    assert {name_of[target]: text for target, text in tree.labels.items()} == want["labels"]
    assert tree.name == want["sessionName"]
    assert tree.leaf_on_load == want["leafOnLoad"]["id"]


def test_the_last_label_wins_and_an_empty_one_clears() -> None:
    tree = SessionTree([entry("a", None), label("l1", "a", "a", "one"),
                        label("l2", "l1", "a", "two")])
    assert tree.labels == {"a": "two"}
    tree.add(label("l3", "l2", "a", None))
    assert tree.labels == {}
    tree.add(label("l4", "l3", "a", "back"))
    tree.add(label("l5", "l4", "a", ""))
    assert tree.labels == {}


def info(id: str, name: str | None) -> SessionInfoEntry:
    return SessionInfoEntry(id=id, parent_id=None, timestamp="t", name=name)


def test_the_name_is_the_last_one_trimmed() -> None:
    tree = SessionTree([info("a", " First "), info("b", "Second  ")])
    assert tree.name == "Second"


def test_an_empty_or_blank_name_clears_it_as_in_pi_073() -> None:
    # Pi 0.58.3 skipped blank names (the name stayed "Second"); 0.73's getSessionName
    # returns `name?.trim() || undefined` for the latest session_info entry.
    for blank in ("", "   ", None):
        tree = SessionTree([info("a", " First "), info("b", "Second  "), info("c", blank)])
        assert tree.name is None
    tree.add(info("d", "Third"))
    assert tree.name == "Third"


def test_roots_are_null_self_and_unknown_parents() -> None:
    tree = SessionTree([entry("a", None), entry("b", "b"), entry("c", "gone"), entry("d", "a")])
    assert [e.id for e in tree.children(None)] == ["a", "b", "c"]
    assert [e.id for e in tree.path_to("c")] == ["c"]
    assert [e.id for e in tree.path_to("b")] == ["b"]


def test_a_parent_later_in_the_file_still_gets_its_child_like_pis_get_tree() -> None:
    tree = SessionTree([entry("a", None), entry("c", "b", "2026-01-01T00:00:09.000Z")])
    assert [e.id for e in tree.children(None)] == ["a", "c"], "b is unknown so far: c is a root"
    tree.add(entry("b", "a"))
    tree.add(entry("d", "b", "2026-01-01T00:00:01.000Z"))
    assert [e.id for e in tree.children(None)] == ["a"]
    assert [e.id for e in tree.children("b")] == ["d", "c"], "sorted by time"
    assert [(d, n.id) for d, n in depth_first(tree)] == [(0, "a"), (1, "b"), (2, "d"), (2, "c")]


def test_children_sort_by_time_and_keep_file_order_on_ties() -> None:
    tree = SessionTree([entry("r", None), entry("late", "r", "2026-01-01T00:00:09.000Z"),
                        entry("tie1", "r"), entry("early", "r", "2025-12-31T23:00:00.000Z"),
                        entry("tie2", "r")])
    assert [e.id for e in tree.children("r")] == ["early", "tie1", "tie2", "late"]


def test_a_child_whose_timestamp_cannot_be_read_sorts_after_the_readable_ones() -> None:
    tree = SessionTree([entry("r", None), entry("odd", "r", "yesterday"),
                        entry("late", "r", "2026-01-01T00:00:09.000Z"),
                        entry("early", "r", "2025-12-31T23:00:00.000Z")])
    assert [e.id for e in tree.children("r")] == ["early", "late", "odd"]


def test_a_parent_loop_is_an_error_not_a_hang() -> None:
    tree = SessionTree([entry("a", "b"), entry("b", "a")])
    with pytest.raises(SessionError, match="loops"):
        tree.path_to("a")
    assert list(tree_rows(tree)) == []


def test_a_path_to_an_unknown_entry_is_an_error() -> None:
    tree = SessionTree([entry("a", None)])
    with pytest.raises(SessionError, match="no entry with id nope"):
        tree.path_to("nope")


def test_the_path_walks_each_parent_once() -> None:
    class Counting(dict):
        lookups = 0

        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            Counting.lookups += 1
            return super().get(key, default)

        def __getitem__(self, key):  # type: ignore[no-untyped-def]
            Counting.lookups += 1  # `by_id[id]` is a lookup as much as `by_id.get(id)`
            return super().__getitem__(key)

    depth = 20_000
    tree = SessionTree([entry("e0", None)] + [entry(f"e{i}", f"e{i - 1}") for i in range(1, depth)])
    tree.by_id = Counting(tree.by_id)
    path = tree.path_to(f"e{depth - 1}")
    assert [e.id for e in path[:2]] == ["e0", "e1"] and len(path) == depth
    assert Counting.lookups == depth  # the leaf, then one lookup per parent


def test_rows_go_deep_without_recursion() -> None:
    depth = 5_000
    tree = SessionTree([entry("e0", None)] + [entry(f"e{i}", f"e{i - 1}") for i in range(1, depth)])
    assert [e.id for _, e in tree_rows(tree)][-1] == f"e{depth - 1}"
    assert {anchor for anchor, _ in tree_rows(tree)} == {None}, "a chain stays in one column"


def test_rows_open_a_level_at_each_branch(data_dir: Path) -> None:
    tree, want = synthetic(data_dir)
    names = {v["id"]: name for name, v in want["entryNames"].items()}
    rows = {names[e.id]: names.get(anchor or "", "top") for anchor, e in tree_rows(tree)}
    assert (rows["mc1"], rows["tl1"], rows["a2"]) == ("top", "mc1", "mc1")
    assert (rows["l1"], rows["u4"], rows["bs1"]) == ("a2", "a2", "a2")
    assert (rows["u2"], rows["a5"], rows["ce1"], rows["si1"]) == ("l1", "l1", "u4", "bs1")
    assert (rows["u5"], rows["a8"]) == ("top", "u5")


def test_a_used_id_is_an_error_and_the_tree_is_unchanged() -> None:
    tree = SessionTree([entry("a", None)])
    with pytest.raises(SessionError, match=r"^entry id a is already used by an earlier entry$"):
        tree.add(entry("a", None))
    with pytest.raises(SessionError, match=r"^f\.jsonl:3: entry id a is already used"):
        tree.add(entry("a", None), "f.jsonl:3")
    assert [e.id for e in tree.entries] == ["a"]


def test_the_path_and_the_entries_are_plain_lists() -> None:
    entries = [entry("a", None), label("b", "a", "a", "mine"), entry("c", "b"),
               label("d", "c", "a", None), entry("e", "d")]
    tree = SessionTree(entries)
    assert tree.path_to("e") == entries and tree.entries == entries


def test_by_id_is_a_mapping_of_the_entries() -> None:
    entries = [entry("a", None), entry("b", "a")]
    index = SessionTree(entries).by_id
    assert index["b"] == entries[1] and "b" in index and "z" not in index
    assert index == {"a": entries[0], "b": entries[1]}
    with pytest.raises(KeyError):
        index["z"]


def test_the_leaf_on_load_is_the_entry_written_last_not_the_deepest() -> None:
    # a → b → c, then the person went back to `a` and wrote `d`: Pi continues at `d`.
    tree = SessionTree([entry("a", None), entry("b", "a"), entry("c", "b"), entry("d", "a")])
    assert tree.leaf_on_load == "d"
    assert SessionTree([]).leaf_on_load is None
