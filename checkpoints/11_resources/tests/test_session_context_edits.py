"""Pi 1.x's entries in a context: context edits, usage entries, system messages and what a
compaction records (session-manager.ts, buildSessionProjection).

A context edit changes what later contexts show of an earlier message without touching the
line it edits; a usage entry is never shown; a compaction's recorded prompt leads the context.
"""

import json
from pathlib import Path

import pytest

from course.session_view import preview
from pi.ai import (
    AssistantMessage,
    Cost,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import (
    CompactionEntry,
    SessionError,
    fixed_clock,
    sequential_ids,
)
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.writer import SessionWriter

STEP = 9
START = 1_796_056_262_345
USAGE = Usage(input=5, output=1, cache_read=0, cache_write=0, total_tokens=6,
              cost=Cost(input=0, output=0, cache_read=0, cache_write=0, total=0))


def user(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=START)


def reply(text: str) -> AssistantMessage:
    return AssistantMessage(content=(TextContent(text=text),), api="mock", provider="mock",
                            model="mock-1", usage=USAGE, stop_reason="stop", timestamp=START)


def new_writer(root: Path) -> SessionWriter:
    return start_session(root, "/work/app", "s", ids=sequential_ids(), clock=fixed_clock(START))


def shown(writer: SessionWriter) -> list[tuple[str, object]]:
    """The context as (role, content), read back from the file as another process would."""
    writer.close()
    tree = read_session(writer.path).tree
    context = build_context(tree, tree.leaf_on_load)
    return [(m.role, getattr(m, "content", None)) for m in context.messages]


def test_an_omitted_message_is_in_no_later_context_but_stays_in_the_file(tmp_path) -> None:
    w = new_writer(tmp_path)
    secret = w.append_message(user("my password is hunter2"))
    w.append_message(reply("noted"))
    w.append_context_edit(secret, None)
    w.append_message(user("go on"))
    assert shown(w) == [("assistant", (TextContent(text="noted"),)), ("user", "go on")]
    assert "hunter2" in w.path.read_text(), "history is append-only: the line is still there"


def test_a_string_replacement_is_one_text_block_for_a_reply_and_stays_a_string_for_a_user(
        tmp_path) -> None:
    w = new_writer(tmp_path)
    asked = w.append_message(user("a long question"))
    answered = w.append_message(reply("a long answer"))
    w.append_context_edit(asked, "short question")
    w.append_context_edit(answered, "short answer")
    assert shown(w) == [("user", "short question"),
                        ("assistant", (TextContent(text="short answer"),))]


def test_the_latest_edit_on_the_branch_wins_and_other_branches_keep_theirs(tmp_path) -> None:
    w = new_writer(tmp_path)
    asked = w.append_message(user("original"))
    fork = w.append_message(reply("ok"))
    w.append_context_edit(asked, "first edit")
    w.append_context_edit(asked, (TextContent(text="second edit"),))
    assert w.context().messages[0].content == (TextContent(text="second edit"),)
    w.branch(fork)
    assert w.context().messages[0].content == "original", "an edit is local to its branch"


def test_a_string_replacement_is_stored_as_pi_stores_it(tmp_path) -> None:
    w = new_writer(tmp_path)
    note = w.append_custom_message("note", "long note", True)
    answered = w.append_message(reply("long answer"))
    result = w.append_message(ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=(TextContent(text="x"),), is_error=False,
        timestamp=START))
    for target in (note, answered, result):
        w.append_context_edit(target, "short")
    lines = [json.loads(line) for line in w.path.read_text().splitlines()[-3:]]
    block = [{"type": "text", "text": "short"}]
    assert [line["replacement"]["content"] for line in lines] == ["short", block, block]
    assert [m.content for m in w.context().messages] == ["short", (TextContent(text="short"),),
                                                         (TextContent(text="short"),)]


def test_a_string_replacement_read_from_a_file_becomes_one_text_block_for_replies(
        tmp_path) -> None:
    w = new_writer(tmp_path)
    answered = w.append_message(reply("long answer"))
    result = w.append_message(ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=(TextContent(text="x"),), is_error=False,
        timestamp=START))
    w.close()
    parent = result
    with w.path.open("a", encoding="utf-8") as file:  # as another writer may store them
        for number, target in enumerate((answered, result)):
            edit = {"type": "context_edit", "id": f"edit{number}", "parentId": parent,
                    "timestamp": "2026-12-01T00:00:00.000Z", "targetId": target,
                    "replacement": {"content": "short"}}
            file.write(json.dumps(edit) + "\n")
            parent = edit["id"]
    tree = read_session(w.path).tree
    messages = build_context(tree, tree.leaf_on_load).messages
    assert [m.content for m in messages] == [(TextContent(text="short"),)] * 2


def test_a_tool_result_replacement_keeps_the_call_it_answers(tmp_path) -> None:
    w = new_writer(tmp_path)
    result = w.append_message(ToolResultMessage(
        tool_call_id="c1", tool_name="read", content=(TextContent(text="x" * 5000),),
        is_error=False, timestamp=START))
    w.append_context_edit(result, "[output elided]")
    (message,) = w.context().messages
    assert isinstance(message, ToolResultMessage) and message.tool_call_id == "c1"
    assert message.content == (TextContent(text="[output elided]"),)


@pytest.mark.parametrize("what", ["off the branch", "not editable", "unknown"])
def test_an_edit_of_something_without_editable_content_here_is_refused(tmp_path,
                                                                        what) -> None:
    w = new_writer(tmp_path)
    asked = w.append_message(user("q"))
    label = w.append_label(asked, "start")
    if what == "off the branch":
        w.branch(None)
        w.append_message(user("elsewhere"))
    target = {"off the branch": asked, "not editable": label, "unknown": "nope"}[what]
    with pytest.raises(SessionError, match=target):
        w.append_context_edit(target, None)


def test_a_usage_entry_is_kept_but_never_shown_to_a_model(tmp_path) -> None:
    w = new_writer(tmp_path)
    w.append_message(user("q"))
    w.append_usage("cache_warm", "mock", "mock-1", USAGE, note="warm-up")
    w.append_usage("cache_warm", "mock", "mock-1", USAGE, note="")
    assert shown(w) == [("user", "q")]
    with_note, without = read_session(w.path).entries[-2:]
    assert with_note.type == "usage" and with_note.usage == USAGE
    assert (with_note.note, without.note) == ("warm-up", None), "an empty note is left out"


def test_a_system_message_is_part_of_the_context(tmp_path) -> None:
    w = new_writer(tmp_path)
    w.append_message(prompt(content="You are terse."))
    w.append_message(user("q"))
    assert shown(w) == [("system", "You are terse."), ("user", "q")]


def prompt(**fields) -> SystemMessage:
    return SystemMessage.model_validate({"role": "system", "content": "", **fields,
                                      "timestamp": 0})


READ = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
WRITE = {"name": "write", "description": "Write a file", "parameters": {"type": "object"}}


def test_a_compaction_records_the_replayed_prompt_and_shows_it_first(tmp_path) -> None:
    w = new_writer(tmp_path)
    w.append_message(prompt(content="Base.", sections={"cwd": "/a", "skills": "s"},
                            toolsAdded=[READ, WRITE]))
    w.append_message(user("old"))
    kept = w.append_message(prompt(content=[{"type": "text", "text": "More."},
                                            {"type": "text", "text": "Still more."}],
                                   sections={"cwd": "/b", "skills": None},
                                   toolsRemoved=[{"name": "read"}]))
    w.append_message(user("kept question"))
    compaction = w.append_compaction("summary", kept, 100, {"readFiles": ["a.py"]}, True, USAGE)
    recorded = read_session(w.path).tree.by_id[compaction]
    assert isinstance(recorded, CompactionEntry) and recorded.usage == USAGE
    assert (recorded.details, recorded.from_hook) == ({"readFiles": ["a.py"]}, True)
    assert recorded.system_message is not None
    assert recorded.system_message.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "role": "system", "content": "Base.\n\nMore.\nStill more.", "sections": {"cwd": "/b"},
        "toolsAdded": [WRITE], "timestamp": START + 5}, "stamped with the compaction's time"
    assert recorded.timestamp == "2026-11-30T16:31:02.350Z"
    context = w.context()
    assert [m.role for m in context.messages] == ["system", "compactionSummary", "user"], \
        "the kept system message is dropped: the recorded prompt already holds it"
    assert context.entry_ids[:2] == (compaction, compaction)


def test_a_compaction_without_system_messages_records_no_prompt(tmp_path) -> None:
    w = new_writer(tmp_path)
    kept = w.append_message(user("q"))
    compaction = w.append_compaction("summary", kept, 100)
    assert "systemMessage" not in w.path.read_text().splitlines()[-1]
    assert w.context().entry_ids == (compaction, kept)


def test_a_compaction_that_keeps_nothing_names_itself_as_first_kept(tmp_path) -> None:
    w = new_writer(tmp_path)
    w.append_message(user("old"))
    compaction = w.append_compaction("summary", None, 100)
    w.append_message(user("new"))
    assert shown(w) == [("compactionSummary", None), ("user", "new")]
    entry = read_session(w.path).tree.by_id[compaction]
    assert entry.first_kept_entry_id == compaction


def test_the_tree_view_names_what_pi_1x_entries_do(tmp_path) -> None:
    w = new_writer(tmp_path)
    w.append_message(prompt(content="Be terse."))
    asked = w.append_message(user("q"))
    w.append_context_edit(asked, None)
    w.append_usage("cache_warm", "mock", "mock-1", USAGE)
    previews = [preview(entry) for entry in w.tree.entries]
    assert previews == ["Be terse.", "q", f"{asked} omitted", "cache_warm: mock/mock-1"]
