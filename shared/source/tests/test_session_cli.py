"""`session info`, `session tree` and `session context` on Pi's reference files.

The sub-app is tested on its own, exactly as `course/cli.py` mounts it as
`python -m course session`.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from course.session_cli import session_app

STEP = 9
PLAIN = {"COLUMNS": "100", "FORCE_COLOR": None, "NO_COLOR": "1", "TERM": "dumb"}


def invoke(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(session_app, [str(arg) for arg in args], env=PLAIN)
    return result.exit_code, result.stdout, result.stderr


def reference(data_dir: Path, name: str) -> tuple[Path, dict]:
    root = data_dir / "pi-reference"
    return root / "sessions", json.loads((root / "expected" / f"{name}.json").read_text())


def test_context_json_for_a_leaf_is_what_pi_computed(data_dir: Path) -> None:
    sessions, want = reference(data_dir, "synthetic-tree")
    for record in want["contexts"]:
        code, out, _ = invoke("context", sessions / "synthetic-tree.v3.jsonl", "--leaf",
                              record["leafId"])
        assert code == 0
        report = json.loads(out)
        assert report["leafId"] == record["leafId"]
        assert report["messages"] == [
            {"role": m["role"], "entryId": m["sourceEntryId"], "tokens": m["estimateTokens"]}
            for m in record["messages"]]
        assert report["totalTokens"] == record["totalEstimatedTokens"]
        assert report["contextTokens"] == record["estimateContextTokens"]["tokens"]


def test_context_json_on_a_v1_file_uses_line_numbered_ids(data_dir: Path) -> None:
    sessions, want = reference(data_dir, "before-compaction")
    record = next(c for c in want["contexts"] if c["label"] == "alternateLeaf@line628")
    code, out, _ = invoke("context", sessions / "before-compaction.jsonl", "--leaf",
                          f"{record['leafLine']:08x}")
    report = json.loads(out)
    assert code == 0 and report["contextTokens"] == record["estimateContextTokens"]["tokens"]
    assert [(m["role"], int(m["entryId"], 16), m["tokens"]) for m in report["messages"]] == [
        (m["role"], m["sourceLine"], m["estimateTokens"]) for m in record["messages"]]


def test_context_at_the_leaf_on_load_gives_the_totals_thinking_level_and_model(
    data_dir: Path
) -> None:
    sessions, _ = reference(data_dir, "synthetic-tree")
    code, out, _ = invoke("context", sessions / "synthetic-tree.v3.jsonl")
    report = json.loads(out)
    assert code == 0 and report["leafId"] == "909ac254"
    assert "compactionSummary" in [m["role"] for m in report["messages"]]
    assert (report["thinkingLevel"], report["model"]) == ("high", "openai/gpt-5")
    assert (report["totalTokens"], report["contextTokens"]) == (121, 2300)


def test_info_counts_like_pi_and_says_the_file_was_not_changed(data_dir: Path) -> None:
    sessions, want = reference(data_dir, "large-session")
    code, out, _ = invoke("info", sessions / "large-session.jsonl")
    assert code == 0
    assert "1, migrated to 3 in memory (the file is unchanged)" in out
    for kind, count in want["entryCounts"]["byType"].items():
        assert f"{kind} {count}" in out
    for role, count in want["entryCounts"]["messageByRole"].items():
        assert f"{role} {count}" in out
    assert "leaf on load  000003fa (entry 1018 of 1018, message/assistant)" in out


def test_info_shows_name_and_labels(data_dir: Path) -> None:
    sessions, _ = reference(data_dir, "synthetic-tree")
    code, out, _ = invoke("info", sessions / "synthetic-tree.v3.jsonl")
    assert code == 0
    assert "name          Synthetic tree demo" in out and "3c9f5f28: start" in out


def test_tree_draws_branches_labels_and_the_leaf(data_dir: Path, text_snapshot) -> None:
    sessions, _ = reference(data_dir, "synthetic-tree")
    code, out, _ = invoke("tree", sessions / "synthetic-tree.v3.jsonl")
    assert code == 0
    assert "3c9f5f28 message/user [start]" in out and "909ac254 session_info ◀ leaf" in out
    text_snapshot(out, "tree.txt")


@pytest.mark.parametrize("command", ["info", "tree", "context"])
def test_a_bad_file_is_one_red_line_and_exit_code_2(tmp_path: Path, command: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"session","id":"s","timestamp":"t","cwd":"/"}\n{oops\n')
    code, out, err = invoke(command, bad)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"error: {bad}:2: not valid JSON (Expecting property name enclosed in double quotes, "
        "column 2)"]


def test_an_unknown_leaf_is_refused(data_dir: Path) -> None:
    sessions, _ = reference(data_dir, "synthetic-tree")
    code, _, err = invoke("context", sessions / "synthetic-tree.v3.jsonl", "--leaf", "nope")
    assert code == 2 and "no entry with id nope" in err


def hostile_file(tmp_path: Path, *entries: dict, raw: bytes = b"") -> Path:
    header = {"type": "session", "version": 3, "id": "s1", "cwd": "/w",
              "timestamp": "2026-01-01T00:00:00.000Z"}
    lines = [json.dumps(item) for item in (header, *entries)]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(("\n".join(lines) + "\n").encode() + raw)
    return path


def said(entry_id: str, parent: str | None, text: str) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1}}


def test_a_loop_of_parents_is_one_line_for_context_and_shown_apart_by_tree(tmp_path) -> None:
    path = hostile_file(tmp_path, said("a", "b", "first"), said("b", "a", "second"))
    code, out, err = invoke("context", path)
    assert code == 2 and out == ""
    assert err.strip() == f"error: {path}: entry b: its chain of parents loops"
    code, out, err = invoke("tree", path)
    assert code == 0 and "first" in out and "second" in out
    assert "parents loop" in out and err.count("\n") == 1 and "a, b" in err


def test_terminal_escapes_and_lone_surrogates_from_the_file_are_shown_escaped(tmp_path) -> None:
    text = "\x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 half \ud800 done"
    path = hostile_file(tmp_path, said("a", None, "x"))
    path.write_text(path.read_text().replace('"x"', json.dumps(text)))
    for command in (["tree"], ["info"], ["context"]):
        code, out, _ = invoke(*command, path)
        assert code == 0 and "\x1b" not in out and "\x07" not in out, command
        assert "\ud800" not in out, command
    assert "\\x1b]0;pwned\\x07" in invoke("tree", path)[1]


def test_a_line_nested_thousands_deep_is_one_line_naming_it(tmp_path) -> None:
    deep = {"type": "custom", "id": "c", "parentId": None, "customType": "x",
            "timestamp": "2026-01-01T00:00:01.000Z"}
    path = hostile_file(tmp_path)
    line = json.dumps(deep)[:-1] + ', "data": ' + "[" * 3000 + "]" * 3000 + "}\n"
    path.write_bytes(path.read_bytes() + line.encode())
    for command in ("info", "tree", "context"):
        code, _, err = invoke(command, path)
        assert code == 2 and err.strip() == (f"error: {path}:2: too large to read (nested deeper "
                                             "than 200 levels)")


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_a_device_given_as_the_session_file_is_refused_not_read(tmp_path) -> None:
    import os
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    for path, kind in ((fifo, "a FIFO"), (zero, "a device")):
        code, out, err = invoke("info", path)
        assert code == 2 and out == "" and err.strip() == f"error: {path}: is {kind}, not a file"


def test_a_tree_far_deeper_than_a_line_is_wide_still_shows_every_entry(tmp_path) -> None:
    entries, parent = [], None
    for number in range(200):  # every entry a branch point: 200 levels of indentation
        entries += [said(f"n{number}", parent, "on"), said(f"m{number}", parent, "side")]
        parent = f"n{number}"
    code, out, _ = invoke("tree", hostile_file(tmp_path, *entries))
    assert code == 0 and "[level 200]" in out
    assert all(f"n{number} " in out and f"m{number} " in out for number in range(200))
