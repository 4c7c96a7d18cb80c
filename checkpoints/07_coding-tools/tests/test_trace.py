"""One complete run, observed: every tool call gets exactly one result."""

import asyncio
import subprocess
import sys
from pathlib import Path

import course
from course import format_timeline, observe_run
from course.trace import run_tool
from mock_model import MockModel, load_script, text, tool_call, turn

STEP = 0
CHECKPOINT = Path(course.__file__).resolve().parents[1]


def greeting_run(data_dir: Path) -> list[dict]:
    workspace = data_dir / "workspaces" / "greeting"

    def read(arguments: dict) -> str:
        return (workspace / arguments["path"]).read_text(encoding="utf-8")

    model = MockModel(load_script(data_dir / "scripts" / "read-greeting.yaml"))
    return asyncio.run(observe_run(model, "What does greeting.txt say?", {"read": read}))


def test_run_alternates_user_assistant_tool_result_assistant(data_dir: Path) -> None:
    roles = [m["role"] for m in greeting_run(data_dir)]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


def test_every_tool_call_is_followed_by_exactly_one_result(data_dir: Path) -> None:
    messages = greeting_run(data_dir)
    calls = [b["id"] for m in messages if m["role"] == "assistant" for b in m["content"]
             if b["type"] == "toolCall"]
    results = [m["toolCallId"] for m in messages if m["role"] == "toolResult"]
    assert calls == results == ["call_1_2"]


def test_the_tool_result_carries_the_file_text(data_dir: Path) -> None:
    result = greeting_run(data_dir)[2]
    assert result["content"] == [{"type": "text", "text": "Hello from the fixture workspace!\n"}]
    assert result["isError"] is False


def test_unknown_and_failing_tools_still_return_one_error_result() -> None:
    def broken(arguments: dict) -> str:
        raise ValueError("disk on fire")

    unknown = run_tool({"id": "c1", "name": "nope", "arguments": {}}, {})
    failed = run_tool({"id": "c2", "name": "broken", "arguments": {}}, {"broken": broken})
    assert (unknown["toolCallId"], unknown["isError"]) == ("c1", True)
    assert unknown["content"][0]["text"] == "Tool nope not found"
    assert (failed["toolCallId"], failed["content"][0]["text"]) == ("c2", "disk on fire")


def test_run_stops_after_max_turns_even_if_the_model_keeps_calling_tools() -> None:
    looping = MockModel([turn(tool_call("echo", {"n": i})) for i in range(5)])
    messages = asyncio.run(observe_run(looping, "go", {"echo": str}, max_turns=2))
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult"] * 1 + [
        "assistant", "toolResult"]


def test_timeline_shows_each_part_in_order(data_dir: Path, text_snapshot) -> None:
    text_snapshot("\n".join(format_timeline(greeting_run(data_dir))) + "\n", "timeline.txt")


def test_two_runs_give_identical_timelines(data_dir: Path) -> None:
    assert format_timeline(greeting_run(data_dir)) == format_timeline(greeting_run(data_dir))


def test_final_answer_is_plain_text_without_tool_calls() -> None:
    model = MockModel([turn(text("Just an answer."))])
    messages = asyncio.run(observe_run(model, "hi", {}))
    assert messages[-1]["stopReason"] == "stop"
    assert format_timeline(messages)[-2].endswith("Just an answer.")


def test_cli_trace_prints_the_timeline(data_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "course", "trace", str(data_dir / "scripts" / "read-greeting.yaml"),
         "--prompt", "What does greeting.txt say?",
         "--workspace", str(data_dir / "workspaces" / "greeting")],
        capture_output=True, text=True, check=False, cwd=CHECKPOINT,
    )
    assert result.returncode == 0, result.stderr
    assert "calls read" in result.stdout and "ok Hello from the fixture" in result.stdout


def test_cli_trace_with_a_missing_script_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "course", "trace", str(tmp_path / "absent.yaml")],
        capture_output=True, text=True, check=False, cwd=CHECKPOINT,
    )
    assert result.returncode == 2
    assert "absent.yaml" in result.stderr and "Traceback" not in result.stderr
