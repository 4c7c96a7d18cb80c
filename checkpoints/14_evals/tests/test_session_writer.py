"""Writing sessions: append-only lines, deterministic bytes, fail closed, forks.

A session written through the writer reads back as the same entries and the same context
for every leaf; after a failed write nothing more is written and the file still reads up to
its last complete line.
"""

import errno
import io
import json
import shutil
from pathlib import Path

import pytest

from pi.ai import (
    AssistantMessage,
    Cost,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import LabelEntry, SessionError, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.writer import SessionWriter, fork_session, open_text

STEP = 9
START = 1_796_056_262_345  # 2026-11-30T16:31:02.345Z


def user(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=START)


def reply(*blocks, total: int = 1000) -> AssistantMessage:
    cost = Cost(input=0, output=0, cache_read=0, cache_write=0, total=0)
    usage = Usage(input=total, output=0, cache_read=0, cache_write=0, total_tokens=total,
                  cost=cost)
    return AssistantMessage(content=blocks, api="mock", provider="mock", model="mock-1",
                            usage=usage, stop_reason="stop", timestamp=START)


def write_session(root: Path, opener=open_text) -> SessionWriter:
    """A session with every kind of entry, two branches, a label and a compaction."""
    w = start_session(root, "/work/app", "sess-1", ids=sequential_ids(), clock=fixed_clock(START),
                      opener=opener)
    w.append_model_change("mock", "mock-1")
    w.append_thinking_level_change("medium")
    first = w.append_message(user("Fix the bug in calc.py"))
    call = w.append_message(reply(ToolCall(id="c1", name="read", arguments={"path": "calc.py"})))
    w.append_message(ToolResultMessage(tool_call_id="c1", tool_name="read",
                                       content=(TextContent(text="def add(a, b): ..."),),
                                       is_error=False, timestamp=START))
    done = w.append_message(reply(TextContent(text="Fixed.")))
    w.append_label(first, "start")
    w.branch(call)
    w.append_custom_message("reminder", "Keep it small", True, {"n": 1})
    w.append_custom("ext-state", {"k": "v"})
    w.branch_with_summary(done, "Tried a second way; dropped it.")
    kept = w.append_message(user("Now add a test"))
    w.append_message(reply(TextContent(text="Added."), total=1500))
    w.append_compaction("Fixed calc.py; a test was added.", kept, 1500,
                        {"readFiles": ["calc.py"], "modifiedFiles": []})
    w.append_message(user("Thanks"))
    w.append_session_info("  Calc fixes  ")
    return w


def test_a_written_session_reads_back_the_same(tmp_path: Path) -> None:
    w = write_session(tmp_path)
    w.close()
    assert w.path == tmp_path / "--work-app--" / "2026-11-30T16-31-02-345Z_sess-1.jsonl"
    session = read_session(w.path)
    assert session.entries == w.tree.entries and session.warnings == ()
    for entry in session.entries:
        assert build_context(session.tree, entry.id) == build_context(w.tree, entry.id)
    assert session.tree.labels == {"00000003": "start"}
    assert session.tree.name == "Calc fixes"
    assert session.tree.leaf_on_load == w.leaf_id
    roles = [m.role for m in build_context(session.tree, w.leaf_id).messages]
    assert roles == ["compactionSummary", "user", "assistant", "user"]


def test_the_bytes_are_the_same_on_every_run(tmp_path: Path) -> None:
    first, second = write_session(tmp_path / "a"), write_session(tmp_path / "b")
    first.close()
    second.close()
    data = first.path.read_bytes()
    assert data == second.path.read_bytes()
    lines = data.decode().splitlines()
    assert json.loads(lines[0]) == {"type": "session", "version": 3, "id": "sess-1",
                                    "timestamp": "2026-11-30T16:31:02.345Z", "cwd": "/work/app"}
    assert lines[1].startswith('{"type":"model_change","id":"00000001","parentId":null,'
                               '"timestamp":"2026-11-30T16:31:02.346Z"')


def test_branching_moves_the_leaf_and_writes_nothing(tmp_path: Path) -> None:
    w = write_session(tmp_path)
    size = w.path.stat().st_size
    w.branch("00000004")
    assert w.leaf_id == "00000004" and w.path.stat().st_size == size
    w.branch(None)
    assert w.context().messages == ()
    with pytest.raises(SessionError, match="no entry with id nope"):
        w.branch("nope")
    with pytest.raises(SessionError, match="no entry with id nope"):
        w.append_label("nope", "x")
    with pytest.raises(SessionError, match="entry id 00000001 is already used"):
        w.append(w.tree.entries[0])
    assert w.path.stat().st_size == size, "nothing refused reached the file"


class Failing(io.TextIOBase):
    """A file whose `fail_at`-th line fails: half of it is written, or its flush fails."""

    def __init__(self, real, fail_at: int, error: Exception, on_flush: bool) -> None:
        self.real, self.fail_at, self.error, self.on_flush = real, fail_at, error, on_flush
        self.writes, self.pending = 0, ""

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes == self.fail_at and not self.on_flush:
            self.real.write(text[: len(text) // 2])
            raise self.error
        self.pending += text
        return len(text)

    def flush(self) -> None:
        if self.writes == self.fail_at and self.on_flush:
            raise self.error  # the buffered line never reaches the file
        self.real.write(self.pending)
        self.pending = ""
        self.real.flush()


@pytest.mark.parametrize(("error", "on_flush"), [
    (OSError(errno.ENOSPC, "No space left on device"), False),
    (PermissionError(errno.EACCES, "Permission denied"), True),
])
def test_after_a_failed_write_nothing_more_is_written(tmp_path: Path, error: OSError,
                                                     on_flush: bool) -> None:
    files: list[Failing] = []

    def opener(path: Path, mode: str) -> Failing:
        files.append(Failing(open_text(path, mode), 4, error, on_flush))
        return files[0]

    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START),
                      opener=opener)  # type: ignore[arg-type]
    w.append_message(user("one"))
    w.append_message(user("two"))
    with pytest.raises(SessionError, match=error.strerror) as caught:
        w.append_message(user("three"))
    assert caught.value.__cause__ is error
    assert w.leaf_id == "00000002" and len(w.tree.entries) == 2
    writes = files[0].writes
    with pytest.raises(SessionError, match=f"\\({error.strerror}\\); nothing more is written"):
        w.append_message(user("four"))  # the first failure again: the writer is done
    assert files[0].writes == writes, "the refused entry never reached the file"
    files[0].real.close()
    session = read_session(w.path)
    assert [e.id for e in session.entries] == ["00000001", "00000002"]
    assert len(session.warnings) == (0 if on_flush else 1)  # the half line is set aside


def test_non_ascii_text_is_written_as_utf8_not_as_escapes(tmp_path: Path) -> None:
    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START))
    w.append_message(user("héllo ✓ 日本"))
    w.close()
    raw = w.path.read_bytes()
    assert "héllo ✓ 日本".encode() in raw and b"\\u" not in raw


def test_a_summary_of_the_whole_branch_comes_from_the_root_and_may_come_from_a_hook(
        tmp_path: Path) -> None:
    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START))
    w.append_message(user("one"))
    ident = w.branch_with_summary(None, "Dropped everything.", from_hook=True)
    w.close()
    last = json.loads(w.path.read_text().splitlines()[-1])
    assert (last["id"], last["parentId"], last["fromId"], last["fromHook"]) == (
        ident, None, "root", True)


def test_an_error_without_a_message_is_named_by_its_type(tmp_path: Path) -> None:
    class FailingWrite(io.StringIO):
        def write(self, text: str) -> int:
            raise RuntimeError()

    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START))
    w._file = FailingWrite()
    with pytest.raises(SessionError, match=r"write failed \(RuntimeError\)"):
        w.append_message(user("one"))


def test_close_closes_the_file_and_a_failed_close_ends_the_writer(tmp_path: Path) -> None:
    opened: list = []

    def opener(path: Path, mode: str):
        opened.append(open_text(path, mode))
        return opened[-1]

    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START),
                      opener=opener)
    w.close()
    assert opened[0].closed

    class FailingClose(io.StringIO):
        def close(self) -> None:
            raise OSError(errno.EIO, "Input/output error")

    broken = start_session(tmp_path, "/w", "t", ids=sequential_ids(), clock=fixed_clock(START),
                           opener=lambda path, mode: FailingClose())
    with pytest.raises(SessionError, match=r"closing failed \(Input/output error\)"):
        broken.close()
    with pytest.raises(SessionError, match=r"closing failed \(Input/output error\)"):
        broken.append_message(user("too late"))  # the failure that ended the writer


def test_a_fork_writes_through_the_opener_of_its_origin(tmp_path: Path) -> None:
    modes: list[str] = []

    def opener(path: Path, mode: str):
        modes.append(mode)
        return open_text(path, mode)

    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(START),
                      opener=opener)
    w.append_message(user("one"))
    forked = fork_session(w, tmp_path / "fork.jsonl", "f")
    assert modes == ["x", "x"]
    assert len(forked.path.read_text().splitlines()) == 2, "header and entry"
    forked.close()


def test_a_resumed_writer_keeps_its_injected_file_faults(tmp_path: Path) -> None:
    write_session(tmp_path).close()
    path = next(tmp_path.rglob("*.jsonl"))
    modes: list[str] = []

    class FullDisk(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    def opener(file_path: Path, mode: str):
        modes.append(mode)
        return FullDisk()

    w = SessionWriter.resume(read_session(path), ids=sequential_ids(100),
                             clock=fixed_clock(START), opener=opener)
    assert modes == ["a"]
    with pytest.raises(SessionError, match="No space left on device"):
        w.append_message(user("Back again"))
    forked_modes = len(modes)
    with pytest.raises(SessionError):
        fork_session(w, tmp_path / "fork.jsonl", "f")
    assert len(modes) == forked_modes + 1, "the fork opened its file through the same opener"


def test_resume_appends_after_the_last_entry(tmp_path: Path) -> None:
    write_session(tmp_path).close()
    path = next(tmp_path.rglob("*.jsonl"))
    w = SessionWriter.resume(read_session(path), ids=sequential_ids(100),
                             clock=fixed_clock(START + 60_000))
    last = w.leaf_id
    new = w.append_message(user("Back again"))
    w.close()
    session = read_session(path)
    assert session.entries[-1].id == new and session.entries[-1].parent_id == last


def test_resume_refuses_old_and_unfinished_files(data_dir: Path, tmp_path: Path) -> None:
    old = read_session(data_dir / "pi-reference/sessions/synthetic-v2-hookmessage.jsonl")
    with pytest.raises(SessionError, match="version 2 file is not appended to"):
        SessionWriter.resume(old, ids=sequential_ids(), clock=fixed_clock(START))
    w = write_session(tmp_path)
    w.close()
    with w.path.open("a") as file:
        file.write('{"type":"mess')
    with pytest.raises(SessionError, match="unfinished line"):
        SessionWriter.resume(read_session(w.path), ids=sequential_ids(), clock=fixed_clock(0))


def test_a_fork_holds_only_the_path_and_its_labels(data_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "synthetic-tree.v3.jsonl"
    shutil.copy(data_dir / "pi-reference/sessions/synthetic-tree.v3.jsonl", source)
    original = read_session(source)
    w = SessionWriter.resume(original, ids=sequential_ids(), clock=fixed_clock(START))
    forked = fork_session(w, tmp_path / "fork.jsonl", "fork-1", leaf_id="4bf4d3dd")  # a5
    forked.close()
    copy = read_session(tmp_path / "fork.jsonl")
    assert copy.header.parent_session == str(source) and copy.header.id == "fork-1"
    path_ids = [e.id for e in original.tree.path_to("4bf4d3dd") if e.type != "label"]
    assert [e.id for e in copy.entries[:-1]] == path_ids
    assert isinstance(copy.entries[-1], LabelEntry) and copy.tree.labels == {"3c9f5f28": "start"}
    assert len(copy.tree.children(None)) == 1, "the entry below the dropped label is relinked"
    assert forked.tree.entries == copy.entries, "the fork's own tree is what it wrote"
    before, after = build_context(original.tree, "4bf4d3dd"), build_context(copy.tree, "4bf4d3dd")
    assert (after.messages, after.entry_ids) == (before.messages, before.entry_ids)
    clone = fork_session(w, tmp_path / "clone.jsonl", "clone-1")  # at the current leaf
    clone.close()
    cloned = read_session(tmp_path / "clone.jsonl")
    assert build_context(cloned.tree, w.leaf_id).messages == w.context().messages
    assert source.read_bytes() == (data_dir / "pi-reference/sessions/synthetic-tree.v3.jsonl"
                                   ).read_bytes()


def test_a_relinked_line_changes_in_parent_id_only(tmp_path: Path) -> None:
    time = '"timestamp":"2026-01-01T00:00:00.000Z"'
    lines = ['{"type":"session","version":3,"id":"s",' + time + ',"cwd":"/w"}',
             '{"type":"message","id":"a","parentId":null,' + time
             + ',"message":{"role":"user","content":"hi","timestamp":1}}',
             '{"type":"label","id":"l","parentId":"a",' + time + ',"targetId":"a","label":"x"}',
             '{"type":"message","id":"b","parentId":"l",' + time
             + ',"newerField":1,"message":{"role":"user","content":"yo","timestamp":2}}']
    source = tmp_path / "s.jsonl"
    source.write_text("".join(line + "\n" for line in lines))
    w = SessionWriter.resume(read_session(source), ids=sequential_ids(), clock=fixed_clock(START))
    fork_session(w, tmp_path / "fork.jsonl", "f").close()
    forked = (tmp_path / "fork.jsonl").read_text().splitlines()
    assert forked[1:3] == [lines[1], lines[3].replace('"parentId":"l"', '"parentId":"a"')]


def test_a_fork_keeps_what_a_compaction_kept_from_a_dropped_label(tmp_path: Path) -> None:
    time = '"timestamp":"2026-01-01T00:00:00.000Z"'

    def user(entry_id: str, parent: str, text: str) -> str:
        return (f'{{"type":"message","id":"{entry_id}","parentId":"{parent}",' + time
                + f',"message":{{"role":"user","content":"{text}","timestamp":1}}}}')

    lines = ['{"type":"session","version":3,"id":"s",' + time + ',"cwd":"/w"}',
             user("a", "x", "old").replace('"parentId":"x"', '"parentId":null'),
             '{"type":"label","id":"l","parentId":"a",' + time + ',"targetId":"a","label":"x"}',
             user("b", "l", "kept"),
             '{"type":"compaction","id":"c","parentId":"b",' + time
             + ',"summary":"S","firstKeptEntryId":"l","tokensBefore":9}',
             user("d", "c", "new")]
    source = tmp_path / "s.jsonl"
    source.write_text("".join(line + "\n" for line in lines))
    original = read_session(source)
    w = SessionWriter.resume(original, ids=sequential_ids(), clock=fixed_clock(START))
    fork_session(w, tmp_path / "fork.jsonl", "f").close()
    copy = read_session(tmp_path / "fork.jsonl")
    forked = (tmp_path / "fork.jsonl").read_text().splitlines()
    assert forked[3] == lines[4].replace('"firstKeptEntryId":"l"', '"firstKeptEntryId":"b"')
    before, after = build_context(original.tree, "d"), build_context(copy.tree, "d")
    assert len(before.messages) == 3, "the summary, the kept message, the new one"
    assert after.messages == before.messages


def test_a_forked_path_starts_at_a_root_even_when_its_first_entry_named_a_missing_parent(
    tmp_path: Path,
) -> None:
    time = '"timestamp":"2026-01-01T00:00:00.000Z"'
    lines = ['{"type":"session","version":3,"id":"s",' + time + ',"cwd":"/w"}',
             '{"type":"message","id":"a","parentId":"gone",' + time
             + ',"message":{"role":"user","content":"hi","timestamp":1}}']
    source = tmp_path / "s.jsonl"
    source.write_text("".join(line + "\n" for line in lines))
    w = SessionWriter.resume(read_session(source), ids=sequential_ids(), clock=fixed_clock(START))
    fork_session(w, tmp_path / "fork.jsonl", "f").close()
    forked = (tmp_path / "fork.jsonl").read_text().splitlines()
    assert forked[1] == lines[1].replace('"parentId":"gone"', '"parentId":null')  # as Pi 1.6


def test_a_reply_with_a_lone_surrogate_or_a_split_emoji_is_written_and_reads_back(
    tmp_path: Path,
) -> None:
    w = start_session(tmp_path, "/work/app", "sess-1", ids=sequential_ids(),
                      clock=fixed_clock(START))
    w.append_message(user("half \ud800 an emoji"))
    w.append_message(reply(TextContent(text="split: \ud83d" + "\ude00 done")))
    w.append_message(user("still writing"))
    w.close()
    messages = [entry.message for entry in read_session(w.path).entries]
    assert messages[0].content == "half \ud800 an emoji"
    assert messages[1].content[0].text == "split: \U0001f600 done"
    assert messages[2].content == "still writing"
