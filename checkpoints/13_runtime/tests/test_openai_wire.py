"""A recorded SSE stream decodes offline through the same code as a live reply."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pi
from course.wire import decode_sse_bytes, summary_lines

STEP = 4


def pi_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "course", *args], capture_output=True, text=True,
                          check=False, cwd=Path(pi.__file__).resolve().parents[1],
                          encoding="utf-8")


def test_the_summary_names_stop_reason_text_calls_and_usage(data_dir: Path) -> None:
    data = (data_dir / "wire" / "openai-tool-call.sse").read_bytes()
    assert summary_lines(asyncio.run(decode_sse_bytes(data))) == [
        "stop reason  toolUse",
        "response id  chatcmpl-CJ4qXh0rTtN2bW8yVx3kLmP9sQa7E",
        'text         "I\'ll read both files first — notes.md and todo.md."',
        'tool call    read {"path":"notes.md"}  (id call_Qm3vX8pK2sLd7aFj9TnB4wEy)',
        'tool call    read {"limit":50,"path":"todo.md"}  (id call_H7cR1zNq5YtG0uVb3XkA8oPd)',
        "usage        input 168, cache read 1152, output 61, total 1381",
    ]


def test_a_truncated_recording_decodes_to_an_error_reply_that_says_why(data_dir: Path) -> None:
    data = (data_dir / "wire" / "openai-truncated.sse").read_bytes()
    lines = summary_lines(asyncio.run(decode_sse_bytes(data)))
    assert lines[:2] == ["stop reason  error", "error        stream ended without a finish reason"]


def test_cli_wire_decode_prints_the_summary_or_the_message_json(data_dir: Path) -> None:
    file = str(data_dir / "wire" / "openai-tool-call.sse")
    summary = pi_command("wire", "decode", file)
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout.splitlines()[0] == "stop reason  toolUse"
    as_json = pi_command("wire", "decode", file, "--json")
    assert as_json.returncode == 0, as_json.stderr
    message = json.loads(as_json.stdout)
    assert message["stopReason"] == "toolUse" and message["usage"]["cacheRead"] == 1152


def test_cli_wire_decode_of_a_bad_file_says_so_in_one_line_with_exit_code_2(tmp_path) -> None:
    not_sse = tmp_path / "notes.txt"
    not_sse.write_text("hello\n", encoding="utf-8")
    for file in (tmp_path / "missing.sse", not_sse):
        result = pi_command("wire", "decode", str(file))
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
        assert str(file.name) in result.stderr
