"""Reading session files: any version, each line checked once, nothing rewritten.

Old files are migrated in memory exactly as Pi migrates them (compared with the files Pi
rewrote); a broken line is named by file and line; an unfinished last line is set aside.
"""

import json
from functools import cache
from pathlib import Path

import pytest

from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import (
    CompactionEntry,
    MessageEntry,
    SessionError,
    parse_entry,
)
from pi.coding_agent.session.reader import LoadedSession, migrate, read_session
from pi.coding_agent.session.tokens import estimate_tokens, js_length

STEP = 9
HEADER = ('{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z",'
          '"cwd":"/w"}')
USER = ('{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":1}}')


def sessions(data_dir: Path) -> Path:
    return data_dir / "pi-reference" / "sessions"


@cache
def expected(data_dir: Path, name: str) -> dict:
    return json.loads((data_dir / "pi-reference" / "expected" / f"{name}.json").read_text())


@cache
def load(path: Path) -> LoadedSession:
    return read_session(path)


def table(session: LoadedSession) -> list[dict]:
    return [{"line": number, "id": e.id, "parentId": e.parent_id, "type": e.type,
             "role": e.message.role if isinstance(e, MessageEntry) else None}
            for number, e in enumerate(session.entries, start=1)]


def counts(session: LoadedSession) -> dict:
    by_type: dict[str, int] = {}
    by_role: dict[str, int] = {}
    for entry in session.entries:
        by_type[entry.type] = by_type.get(entry.type, 0) + 1
        if isinstance(entry, MessageEntry):
            by_role[entry.message.role] = by_role.get(entry.message.role, 0) + 1
    return {"totalEntriesExcludingHeader": len(session.entries), "byType": by_type,
            "messageByRole": by_role}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["large-session", "before-compaction"])
def test_the_v3_files_hold_pis_entries_and_leaf(data_dir: Path, name: str) -> None:
    session, want = load(sessions(data_dir) / f"{name}.v3.jsonl"), expected(data_dir, name)
    assert counts(session) == want["entryCounts"]
    expected_table = [{**row, "role": row.get("role")} for row in want["entryTable"]]
    assert table(session) == expected_table
    assert session.tree.leaf_on_load == want["leafOnLoad"]["id"]
    assert not session.migrated and session.warnings == ()


@pytest.mark.parametrize("name", ["large-session", "before-compaction"])
def test_v1_files_are_migrated_in_memory_like_pi(data_dir: Path, name: str) -> None:
    path = sessions(data_dir) / f"{name}.jsonl"
    before = path.read_bytes()
    session, want = read_session(path), expected(data_dir, name)
    assert path.read_bytes() == before, "reading never rewrites the file"
    assert (session.file_version, session.header.version, session.migrated) == (1, 3, True)
    assert counts(session) == want["entryCounts"]
    ours = [(r["line"], r["type"], r["role"]) for r in table(session)]
    assert ours == [(r["line"], r["type"], r.get("role")) for r in want["entryTable"]]
    assert session.entries[0].parent_id is want["migration"]["firstEntryParentId"]
    pairs = zip(session.entries, session.entries[1:], strict=False)
    assert all(child.parent_id == parent.id for parent, child in pairs), "one linear chain"
    assert {len(e.id) for e in session.entries} == {want["migration"]["idLength"]}
    leaf = want["leafOnLoad"]
    assert (len(session.entries), session.entries[-1].type) == (leaf["line"], leaf["type"])
    raw = before.splitlines()
    for fact in want["migration"]["compactions"]:
        original = json.loads(raw[fact["line"]])  # the header is raw line 0
        assert original["firstKeptEntryIndex"] == fact["originalFirstKeptEntryIndex"]
        compaction = session.entries[fact["line"] - 1]
        assert isinstance(compaction, CompactionEntry)
        kept = session.entries[fact["migratedFirstKeptLine"] - 1]
        assert compaction.first_kept_entry_id == kept.id
        assert compaction.tokens_before == fact["tokensBefore"]
        assert js_length(compaction.summary) == fact["summaryChars"]


def test_reading_an_old_file_twice_gives_the_same_ids(data_dir: Path) -> None:
    first = read_session(sessions(data_dir) / "before-compaction.jsonl")
    again = read_session(sessions(data_dir) / "before-compaction.jsonl")
    assert [e.id for e in first.entries] == [e.id for e in again.entries]


def v1_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "old.jsonl"
    header = '{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
    path.write_text("".join(line + "\n" for line in (header, *lines)))
    return path


V1_USER = ('{"type":"message","timestamp":"t","message":{"role":"user","content":"hi",'
           '"timestamp":1}}')


def test_a_v1_compaction_index_becomes_the_id_of_that_entry(tmp_path: Path) -> None:
    path = v1_file(tmp_path, V1_USER, V1_USER, '{"type":"compaction","timestamp":"t","summary":'
                   '"s","firstKeptEntryIndex":2,"tokensBefore":5}')
    entries = read_session(path).entries
    assert [(e.id, e.parent_id) for e in entries] == [
        ("00000001", None), ("00000002", "00000001"), ("00000003", "00000002")]
    assert isinstance(entries[2], CompactionEntry) and entries[2].first_kept_entry_id == "00000002"


@pytest.mark.parametrize("index", ["4", "0", "1.5"])
def test_a_v1_compaction_index_that_names_no_earlier_entry_leaves_no_id(
        tmp_path: Path, index: str) -> None:
    path = v1_file(tmp_path, V1_USER, '{"type":"compaction","timestamp":"t","summary":"s",'
                   f'"firstKeptEntryIndex":{index},"tokensBefore":5}}', V1_USER)
    with pytest.raises(SessionError, match=r"old\.jsonl:3: firstKeptEntryId: Field required"):
        read_session(path)


def test_a_v1_line_that_has_ids_gets_new_ones_like_every_other(tmp_path: Path) -> None:
    path = v1_file(tmp_path, '{"type":"label","timestamp":"t","targetId":"x","id":"own",'
                   '"parentId":"p"}')
    assert [(e.id, e.parent_id) for e in read_session(path).entries] == [("00000001", None)]


@pytest.mark.parametrize("name", ["large-session", "before-compaction"])
def test_migration_gives_what_pi_rewrote(data_dir: Path, name: str) -> None:
    pi_lines = (sessions(data_dir) / f"{name}.v3.jsonl").read_bytes().splitlines()
    pi_ids = iter(json.loads(line)["id"] for line in pi_lines[1:])
    old = (sessions(data_dir) / f"{name}.jsonl").read_bytes().splitlines()
    ours = [json.loads(line) for line in old if line.strip()]
    migrate(ours, 1, lambda: next(pi_ids))
    assert list(ours[0]) == expected(data_dir, name)["migration"]["headerKeysAfter"]
    same_order = [json.dumps(d) for d in ours]
    assert same_order == [json.dumps(json.loads(line)) for line in pi_lines]


def test_a_v2_hook_message_becomes_a_custom_message(data_dir: Path) -> None:
    want = expected(data_dir, "synthetic-v2-hookmessage")
    session = read_session(sessions(data_dir) / "synthetic-v2-hookmessage.jsonl")
    assert session.header.version == want["headerVersionAfter"] and session.file_version == 2
    assert [e.id for e in session.entries] == want["idsUnchanged"]
    context = build_context(session.tree, session.tree.leaf_on_load)
    assert [m.role for m in context.messages] == want["roles"]
    assert [estimate_tokens(m) for m in context.messages] == want["estimateTokens"]
    assert session.tree.leaf_on_load == want["leafOnLoad"]
    pi = read_session(sessions(data_dir) / "synthetic-v2-hookmessage.migrated-v3.jsonl")
    assert session.entries == pi.entries


def test_an_unfinished_last_line_is_ignored_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, f"{HEADER}\n{USER % ('a1', 'null')}\n" + (USER % ("a2", '"a1"'))[:40])
    session = read_session(path)
    assert [e.id for e in session.entries] == ["a1"]
    assert session.warnings == (f"{path}:3: the last line has no newline (a write that did "
                                "not finish); ignored",)


def test_a_complete_last_line_without_newline_is_still_unfinished(tmp_path: Path) -> None:
    path = write(tmp_path, f"{HEADER}\n{USER % ('a1', 'null')}")
    assert read_session(path).entries == [] and read_session(path).warnings


@pytest.mark.parametrize(("bad", "problem"), [
    ("{not json", ":3: not valid JSON (Expecting property name enclosed in double quotes"),
    (USER.replace('"hi"', "42") % ("a2", '"a1"'), ":3: message."),
    ('{"type":"mystery","id":"x","timestamp":"t"}', ":3: parentId: Field required"),
    ('{"type":"label","id":"x","parentId":null,"timestamp":"t","targetId":7}', ":3: targetId: "),
    ('{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"content":"hi"}}',
     ":3: message.role: Field required"),
])
def test_a_broken_line_is_named_by_file_and_line(tmp_path: Path, bad: str, problem: str) -> None:
    path = write(tmp_path, f"{HEADER}\n{USER % ('a1', 'null')}\n{bad}\n{USER % ('a3', 'null')}\n")
    with pytest.raises(SessionError) as caught:
        read_session(path)
    text = str(caught.value)
    assert text.startswith(f"{path}{problem}") and "\n" not in text


@pytest.mark.parametrize(("text", "problem"), [
    ("", "no session header (the file is empty)"),
    ('{"type":"session","id":"s"}', "no session header (its only line is unfinished)"),
    ('{"type":"message","id":"s"}\n', ":1: "),
    ("[1, 2]\n", ":1: "),
])
def test_an_empty_file_or_a_bad_header_is_refused_and_kept(tmp_path: Path, text: str,
                                                           problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SessionError, match="it is left as it is") as caught:
        read_session(path)
    assert problem in str(caught.value)
    assert path.read_text() == text


def test_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER.replace('"version":3', '"version":4') + "\n")
    with pytest.raises(SessionError, match=r":1: session version 4 is newer"):
        read_session(path)


@pytest.mark.parametrize("version", ['', ',"version":2', ',"version":3'])
def test_a_file_of_only_its_header_is_an_empty_session_in_every_version(
        tmp_path: Path, version: str) -> None:
    header = HEADER.replace(',"version":3', "").replace("}", version + "}", 1)
    session = read_session(write(tmp_path, header + "\n"))
    assert (len(session.entries), session.header.version) == (0, 3), header


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, f"{HEADER}\n{USER % ('a1', 'null')}\n{USER % ('a1', 'null')}\n")
    with pytest.raises(SessionError, match=r":3: entry id a1 is already used"):
        read_session(path)


def test_blank_lines_are_skipped_like_pi(tmp_path: Path) -> None:
    path = write(tmp_path, f"{HEADER}\n\n{USER % ('a1', 'null')}\n\n")
    assert [e.id for e in read_session(path).entries] == ["a1"]


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match=r"nope.jsonl: No such file"):
        read_session(tmp_path / "nope.jsonl")


def written_session(tmp_path: Path, turns: int = 6) -> Path:
    path = tmp_path / "s.jsonl"
    lines = [HEADER] + [USER % (f"u{n}", f'"u{n - 1}"' if n else "null") for n in range(turns)]
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_every_entry_is_the_entry_a_parse_of_its_line_gives(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    lines = path.read_bytes().splitlines()[1:]
    assert read_session(path).entries == [parse_entry(json.loads(line), "x") for line in lines]


@pytest.mark.parametrize("line", [2, 4, 7])
def test_a_bad_line_anywhere_is_named(tmp_path: Path, line: int) -> None:
    path = written_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].replace('"content":"hi"', '"content":42')
    path.write_text("".join(lines))
    with pytest.raises(SessionError, match=rf"s\.jsonl:{line}: message\.content"):
        read_session(path)


def test_of_two_bad_lines_the_first_in_the_file_is_named(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = "{not json\n"
    lines[-1] = lines[-1].replace('"timestamp":1}', '"timestamp":"soon"}')
    path.write_text("".join(lines))
    with pytest.raises(SessionError, match=r"s\.jsonl:4: not valid JSON"):
        read_session(path)


def test_json_only_python_reads_is_still_read(tmp_path: Path) -> None:
    path = written_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"timestamp":1}', '"timestamp":1,"score":NaN}')
    path.write_text("".join(lines))
    assert len(read_session(path).entries) == 6


BIG = "9" * 5_000


@pytest.mark.parametrize(("text", "line"), [
    (HEADER[:-1] + f',"x":{BIG}}}', 1),
    (HEADER + "\n" + USER.replace('"timestamp":1}', f'"timestamp":{BIG}}}') % ("a1", "null"), 2),
    (HEADER + "\n" + USER.replace('"hi"', f'[{{"type":"text","text":"x","n":{BIG}}}]') % (
        "a1", "null"), 2),
    ('{"type":"session","id":"s","timestamp":"t","cwd":"/"}\n' + V1_USER + "\n"
     f'{{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":{BIG}}}', 3),
])
def test_an_integer_too_long_for_python_is_one_line_naming_file_and_line(
        tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text + "\n")
    with pytest.raises(SessionError, match=rf"^{path}:{line}: .*more than 4300 digits") as caught:
        read_session(path)
    assert "\n" not in str(caught.value)
