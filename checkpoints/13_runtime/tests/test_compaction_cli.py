"""`session cut` and `session should-compact` print JSON; bad input is one red line.

The commands are registered here on a small typer app of their own, exactly as `course/cli.py`
registers them on its `session` group.
"""

from __future__ import annotations

import json

import typer
from compaction_reference import load
from typer.testing import CliRunner

from course.compaction_cli import cut, should_compact
from pi.coding_agent.compaction.compact import prepare_compaction
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.session.entries import CompactionEntry
from pi.coding_agent.session.reader import read_session

STEP = 10
app = typer.Typer()
app.command("cut")(cut)
app.command("should-compact")(should_compact)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.stdout, result.stderr


def test_cut_prints_what_a_compaction_at_the_leaf_would_keep(data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    cuts = [c for c in ref.newest["findCutPoint"] if c["mode"] == "afterLatestCompaction"]
    assert cuts
    for case in cuts:
        keep = str(case["keepRecentTokens"])
        code, out, _ = invoke("cut", ref.session.path, "--keep-recent", keep)
        assert code == 0
        start = case["turnStartEntry"]["id"] if case["isSplitTurn"] else None
        assert json.loads(out) == {"firstKeptEntryId": case["firstKeptEntry"]["id"],
                                   "isSplitTurn": case["isSplitTurn"],
                                   "turnStartEntryId": start}


def test_cut_at_another_leaf_searches_after_that_paths_latest_compaction(data_dir) -> None:
    ref = load(data_dir, "before-compaction")
    case = ref.expected["prepareCompactionAtOtherLeaves"][1]
    code, out, _ = invoke("cut", ref.session.path, "--leaf", case["leafId"])
    assert code == 0
    assert json.loads(out) == {"firstKeptEntryId": case["firstKeptEntryId"],
                               "isSplitTurn": True,
                               "turnStartEntryId": case["turnPrefixMessages"]["entryRange"][
                                   "firstEntry"]["id"]}


def test_cut_keeps_the_entry_a_compaction_would_keep_at_every_budget(data_dir) -> None:
    """Where nothing would be summarised, everything the last compaction kept stays kept."""
    ref = load(data_dir, "before-compaction")
    tree = read_session(ref.session.path).tree
    path = tree.path_to(tree.leaf_on_load or "")
    last_kept = [e for e in path if isinstance(e, CompactionEntry)][-1].first_kept_entry_id
    for keep in (100, 5_000, 20_000, 60_000, 200_000, 10**9):
        prep = prepare_compaction(path, CompactionSettings(keep_recent_tokens=keep))
        code, out, _ = invoke("cut", ref.session.path, "--keep-recent", str(keep))
        assert code == 0
        kept = last_kept if prep is None else prep.first_kept_entry_id
        assert json.loads(out)["firstKeptEntryId"] == kept, keep
        assert prep is None or json.loads(out)["isSplitTurn"] == prep.is_split_turn, keep


def test_should_compact_prints_the_answer_and_the_threshold() -> None:
    code, out, _ = invoke("should-compact", "--tokens", "183617", "--window", "200000")
    assert (code, json.loads(out)) == (0, {"shouldCompact": True, "threshold": 183_616})
    code, out, _ = invoke("should-compact", "--tokens", "900", "--window", "1000",
                          "--reserve", "100")
    assert (code, json.loads(out)) == (0, {"shouldCompact": False, "threshold": 900})


def test_bad_input_is_one_red_line_and_exit_code_2(data_dir, tmp_path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n{oops\n')
    compacted = data_dir / "pi-reference" / "sessions" / "synthetic-tree.v3.jsonl"
    for args, words in [((tmp_path / "missing.jsonl",), "missing.jsonl"),
                        ((broken,), "broken.jsonl:2: not valid JSON"),
                        ((compacted, "--leaf", "nope"), "no entry with id nope"),
                        ((compacted, "--leaf", "60aed926"), "already compacted")]:
        code, out, err = invoke("cut", *args)
        assert (code, out) == (2, "")
        assert err.startswith("error: ") and words in err and err.count("\n") == 1
