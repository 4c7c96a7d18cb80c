"""Old lines are checked, not built, until somebody asks; the check is the models'.

The reader builds the entries a context for the last leaf can show and only checks the lines
before the latest compaction's first kept entry. Checked is not trusted less: every line is
validated before the session is handed out, a bad one is named (the first in the file), and
the shape it is checked against accepts exactly what the models accept.
"""

import copy
import json
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from pi.ai import (
    AssistantMessage,
    Cost,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from pi.coding_agent.session import entries as E
from pi.coding_agent.session import message_shapes as M
from pi.coding_agent.session import shape as S
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import parse_entry
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import fixed_clock, sequential_ids
from pi.coding_agent.session.lines import parse_entry_line
from pi.coding_agent.session.nodes import (
    NEWEST_TOKENS,
    Node,
    add_newest_tokens,
    count_newest_tokens,
)
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.shape import checked_line
from pi.coding_agent.session.tokens import estimate_tokens
from pi.coding_agent.session.writer import SessionWriter

STEP = 9
PAIRS: list[tuple[type[BaseModel], type]] = [
    (TextContent, M.TextShape), (ThinkingContent, M.ThinkingShape), (ImageContent, M.ImageShape),
    (ToolCall, M.ToolCallShape), (Cost, M.CostShape), (Usage, M.UsageShape),
    (UserMessage, M.UserShape), (AssistantMessage, M.AssistantShape),
    (ToolResultMessage, M.ToolResultShape), (BashExecutionMessage, M.BashExecutionShape),
    (CustomMessage, M.CustomShape), (BranchSummaryMessage, M.BranchSummaryShape),
    (CompactionSummaryMessage, M.CompactionSummaryShape), (E.MessageEntry, S.MessageEntryShape),
    (E.ThinkingLevelChangeEntry, S.ThinkingLevelChangeShape),
    (E.ModelChangeEntry, S.ModelChangeShape), (E.CompactionEntry, S.CompactionShape),
    (E.BranchSummaryEntry, S.BranchSummaryEntryShape), (E.CustomEntry, S.CustomEntryShape),
    (E.CustomMessageEntry, S.CustomMessageEntryShape), (E.LabelEntry, S.LabelShape),
    (E.SessionInfoEntry, S.SessionInfoShape), (E.UnknownEntry, S.UnknownEntryShape),
]
TAGS = {"type", "role"}  # defaults in the models, yet a line must say them (they pick the model)


def compacted_session(tmp_path: Path) -> tuple[Path, str]:
    """Ten turns, a compaction keeping the last three, two turns more; returns (file, kept id)."""
    writer = SessionWriter.create(tmp_path / "s.jsonl", E.SessionHeader(
        version=3, id="s", timestamp="2026-01-01T00:00:00.000Z", cwd="/w"),
        ids=sequential_ids(), clock=fixed_clock(1_767_225_600_000))
    ids = [writer.append_message(UserMessage(content=f"turn {n}", timestamp=n))
           for n in range(10)]
    writer.append_compaction("the first seven turns", ids[7], 1234)
    for n in range(2):
        writer.append_message(UserMessage(content=f"after {n}", timestamp=20 + n))
    writer.close()
    return writer.path, ids[7]


def test_lines_before_the_leafs_first_kept_entry_are_checked_not_built(tmp_path: Path) -> None:
    path, kept = compacted_session(tmp_path)
    session = read_session(path)
    built = [node.built for node in session.tree.nodes]
    first_kept = [node.id for node in session.tree.nodes].index(kept)
    assert built == [False] * first_kept + [True] * (len(built) - first_kept)
    context = build_context(session.tree, session.tree.leaf_on_load)
    assert [node.built for node in session.tree.nodes] == built, "the context needs no more"
    assert len(context.messages) == 1 + 3 + 2


def test_an_entry_built_later_is_the_entry_a_full_parse_gives(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    session = read_session(path)
    lines = path.read_bytes().splitlines()[1:]
    assert list(session.entries) == [parse_entry(json.loads(line), "x") for line in lines]


def test_a_walk_or_a_path_builds_nothing(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    session = read_session(path)
    built = [node.built for node in session.tree.nodes]
    assert len(list(session.tree.walk())) == len(built)
    assert len(session.tree.path_to(session.tree.leaf_on_load or "")) == len(built)
    assert [node.built for node in session.tree.nodes] == built


def test_every_node_knows_the_line_file_and_number_it_was_read_from(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    for number, node in enumerate(read_session(path).tree.nodes, start=2):  # header: line 1
        assert (node.line, node.file, node.number) == (lines[number - 1], str(path), number)


def test_an_old_entry_keeps_its_file_and_number_though_it_has_no_line_of_its_own(
        data_dir: Path) -> None:
    path = data_dir / "pi-reference" / "sessions" / "large-session.jsonl"  # version 1
    node = read_session(path).tree.nodes[4]
    assert (node.line, node.file, node.number) == (None, str(path), 6)


def test_a_node_made_in_memory_comes_from_no_file_and_keeps_a_line_it_is_given() -> None:
    entry = parse_entry({"type": "label", "id": "a", "parentId": None,
                         "timestamp": "2026-01-01T00:00:00.000Z", "targetId": "x"}, "here")
    made = Node.of(entry)
    assert (made.line, made.file, made.number) == (None, "", 0)
    given = Node.of(entry, b'{"type":"label"}\n')
    assert (given.line, given.file, given.number) == (b'{"type":"label"}\n', "", 0)


def test_a_small_sessions_built_messages_all_get_their_estimates(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    session = read_session(path)
    for node in session.tree.nodes:
        if node.built and node.type == "message":
            assert node.tokens == estimate_tokens(node.entry.message)
        else:
            assert node.tokens is None, "a checked line stays unbuilt, and so unestimated"


@pytest.mark.parametrize("name", ["large-session.jsonl", "large-session.v3.jsonl",
                                  "before-compaction.v3.jsonl"])
def test_reading_estimates_the_newest_messages_until_they_reach_the_budget(
        data_dir: Path, name: str) -> None:
    session = read_session(data_dir / "pi-reference" / "sessions" / name)
    newest_first = [node for node in reversed(session.tree.nodes) if node.type == "message"]
    counted = len([node for node in newest_first if node.tokens is not None])
    assert all(node.tokens is not None for node in newest_first[:counted]), "no gap"
    tokens = [estimate_tokens(node.entry.message) for node in newest_first[:counted]]
    assert [node.tokens for node in newest_first[:counted]] == tokens
    assert sum(tokens[:-1]) < NEWEST_TOKENS <= sum(tokens), "it stops once they reach it"


def messages_of(*tokens: int) -> list[Node]:
    """Nodes of user messages of exactly these estimates (four characters a token)."""
    return [Node.of(E.MessageEntry(id=f"m{i}", parent_id=None, timestamp="t", message=UserMessage(
        content="x" * (4 * count), timestamp=0))) for i, count in enumerate(tokens)]


@pytest.mark.parametrize(("budget", "counted"), [(0, 0), (1, 1), (10, 1), (11, 2), (30, 3)])
def test_counting_the_newest_tokens_stops_at_the_message_that_reaches_the_budget(
        budget: int, counted: int) -> None:
    nodes = messages_of(10, 10, 10)
    count_newest_tokens(nodes, budget)
    assert [node.tokens for node in nodes] == [10] * counted + [None] * (3 - counted)


@pytest.mark.parametrize(("total", "after"), [(0, 10), (9, 19), (10, 10), (11, 11)])
def test_a_message_is_added_to_the_newest_tokens_only_while_they_are_under_the_budget(
        total: int, after: int) -> None:
    node = messages_of(10)[0]
    assert add_newest_tokens(total, node, 10) == after
    assert node.tokens == (10 if total < 10 else None), "nothing is estimated past the budget"


def test_counting_the_newest_tokens_passes_over_entries_that_are_no_message() -> None:
    label = Node.of(E.LabelEntry(id="l", parent_id=None, timestamp="t", target_id="m0",
                                 label="mark"))
    nodes = [messages_of(9)[0], label, *messages_of(0, 10)]
    count_newest_tokens(nodes, 10)
    assert [node.tokens for node in nodes] == [9, None, 0, 10], "a label adds no token"


@pytest.mark.parametrize("line", [2, 5, 9])
def test_a_bad_old_line_is_still_named(tmp_path: Path, line: int) -> None:
    path, _ = compacted_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].replace('"content":"turn', '"content":42,"x":"')
    path.write_text("".join(lines))
    with pytest.raises(SessionError, match=rf"s\.jsonl:{line}: message\.content"):
        read_session(path)


def test_of_two_bad_lines_the_first_in_the_file_is_named(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = "{not json\n"
    lines[-1] = lines[-1].replace('"timestamp":2', '"timestamp":"soon"')
    path.write_text("".join(lines))
    with pytest.raises(SessionError, match=r"s\.jsonl:4: not valid JSON"):
        read_session(path)


def test_json_only_python_reads_is_still_read(tmp_path: Path) -> None:
    path, _ = compacted_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"timestamp":1}', '"timestamp":1,"score":NaN}')
    path.write_text("".join(lines))
    assert len(read_session(path).entries) == 13


@pytest.mark.parametrize(("model", "shape"), PAIRS, ids=[s.__name__ for _, s in PAIRS])
def test_each_shape_has_its_models_fields_and_required_keys(model: type[BaseModel],
                                                            shape: type) -> None:
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    assert set(fields) == set(typing.get_type_hints(shape))
    required = {alias for alias, info in fields.items() if info.is_required() or alias in TAGS}
    assert required == set(shape.__required_keys__)  # type: ignore[attr-defined]


def mutations(data: object) -> list[object]:
    """Copies of `data` with one key dropped or one value replaced, at every depth."""
    out: list[object] = []
    if isinstance(data, dict):
        for key in data:
            out.append({k: v for k, v in data.items() if k != key})
            for wrong in (None, 42, "text", 1.5, True, [], {}):
                out.append({**data, key: wrong})
            out += [{**data, key: changed} for changed in mutations(data[key])]
    elif isinstance(data, list):
        for index, item in enumerate(data):
            out += [[*data[:index], changed, *data[index + 1:]] for changed in mutations(item)]
    return out


def test_the_shape_accepts_exactly_the_lines_the_models_accept(data_dir: Path) -> None:
    path = data_dir / "pi-reference/sessions/synthetic-tree.v3.jsonl"
    lines = [json.loads(line) for line in path.read_bytes().splitlines()[1:]]
    tried = 0
    for data in lines:
        for changed in [data, *mutations(copy.deepcopy(data))]:
            raw = json.dumps(changed).encode()
            assert (checked_line(raw) is None) == (parse_entry_line(raw) is None), raw
            tried += 1
    assert tried > 5_000
