"""`python -m mock_model play` prints one valid JSON event per line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mock_model.validate import schema_errors

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mock_model", *arguments],
        capture_output=True, text=True, env=environment, cwd=REPO_ROOT, check=False,
    )  # fmt: skip


def test_play_prints_valid_json_lines_ending_in_one_terminal(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    turns = [{"parts": [{"text": "Hi!"}, {"toolCall": {"name": "ls", "arguments": {}}}]}]
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    result = run_cli("play", str(script), "--prompt", "list files")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(schema_errors(event) == [] for event in events)
    assert [event["type"] for event in events][-1] == "done"
    assert events[-1]["reason"] == "toolUse"


def test_play_output_lines_have_sorted_keys_and_are_reproducible(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("turns:\n  - text: same every time\n", encoding="utf-8")
    first, second = run_cli("play", str(script)), run_cli("play", str(script))
    assert first.stdout == second.stdout
    for line in first.stdout.splitlines():
        assert line == json.dumps(json.loads(line), sort_keys=True, ensure_ascii=False)


def test_play_reports_a_bad_script_on_stderr_with_exit_code_2(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('{"turns": [{"txt": "x"}]}', encoding="utf-8")
    result = run_cli("play", str(script))
    assert result.returncode == 2
    assert "turns[0]: unknown field 'txt'" in result.stderr
    assert result.stdout == ""
