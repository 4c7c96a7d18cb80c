"""`pi-agent --mode rpc`, the real command through pipes, on scripted MockModels.

Each test starts the command as a client program would, writes JSON lines to its stdin and
reads responses and events from its stdout while the run goes on.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from rpc_client import SOURCE, TIMEOUT, RpcClient, agent_env

STEP = 13


def start(tmp_path: Path, data_dir: Path, script: str, repo: str | None = None) -> RpcClient:
    cwd = tmp_path / "work"
    if repo is not None:
        shutil.copytree(data_dir / "workspaces" / repo, cwd)
    cwd.mkdir(exist_ok=True)
    return RpcClient("--script", str(data_dir / "scripts" / script), "--cwd", str(cwd),
                     "--session", str(tmp_path / "session.jsonl"),
                     "--agent-dir", str(tmp_path / "agent"))


def stored_messages(path: Path) -> list[dict]:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return [entry["message"] for entry in entries if entry["type"] == "message"]


def test_a_prompt_reads_edits_and_tests_the_fixture_repo_and_its_tests_pass(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "fix-buggy-calc.yaml", repo="buggy-calc")
    accepted = client.request({"type": "prompt", "id": "p1",
                               "message": "test_calc.py fails. Please fix the bug."})
    assert accepted == {"id": "p1", "type": "response", "command": "prompt", "success": True,
                        "data": {"disposition": "started"}}
    client.event("agent_end")
    seen = client.close()
    tools = [line["toolName"] for line in seen if line["type"] == "tool_execution_end"]
    assert tools == ["read", "read", "edit", "bash"]
    done = subprocess.run([sys.executable, "test_calc.py"], cwd=tmp_path / "work",
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "2 passed"


def test_a_steer_sent_while_a_tool_runs_arrives_before_the_next_model_request(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "steer-while-bash-sleeps.yaml")
    client.request({"type": "prompt", "id": "p1", "message": "check, then edit a.txt"})
    client.event("tool_execution_start")
    refused = client.request({"type": "prompt", "id": "p2", "message": "no behaviour given"})
    assert refused["success"] is False and "streamingBehavior" in refused["error"]
    steered = client.request({"type": "prompt", "id": "p3", "message": "Use b.txt instead.",
                              "streamingBehavior": "steer"})
    assert steered["success"] is True
    client.event("agent_end")
    messages = client.request({"type": "get_messages", "id": "m"})["data"]["messages"]
    client.close()
    roles = [(m["role"], m["content"] if m["role"] == "user" else None) for m in messages]
    assert roles == [("system", None), ("user", "check, then edit a.txt"), ("assistant", None),
                     ("toolResult", None), ("user", "Use b.txt instead."), ("assistant", None)]
    assert stored_messages(tmp_path / "session.jsonl") == messages
    assert messages[-1]["content"][0]["text"] == "Understood: I will use the other file."


def test_an_abort_stops_the_run_and_returns_the_queued_messages(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "abort-while-bash-sleeps.yaml")
    client.request({"type": "prompt", "id": "p1", "message": "run the slow thing"})
    client.event("tool_execution_start")
    client.request({"type": "follow_up", "id": "f", "message": "then write the docs"})
    client.request({"type": "steer", "id": "s", "message": "actually, stop"})
    aborted = client.request({"type": "abort", "id": "a"})
    assert aborted["success"] is True
    assert [m["content"] for m in aborted["data"]["messages"]] == ["actually, stop",
                                                                    "then write the docs"]
    state = client.request({"type": "get_state", "id": "st"})["data"]
    assert state["isStreaming"] is False and state["pendingMessageCount"] == 0
    seen = client.close()
    assert [line["type"] for line in seen].count("agent_end") == 1
    stored = stored_messages(tmp_path / "session.jsonl")
    # As in Pi's agent loop: the tool's (error) result is recorded, the loop asks the model
    # once more, and the aborted signal answers at once with an `aborted` reply.
    assert [m["role"] for m in stored] == ["system", "user", "assistant", "toolResult",
                                           "assistant"]
    assert stored[3]["isError"] is True, "the aborted command's result is recorded"
    assert stored[4]["stopReason"] == "aborted" and stored[4]["content"] == []


def test_compact_while_a_run_goes_on_is_refused_and_leaves_the_run_and_its_queue_alone(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "abort-while-bash-sleeps.yaml")
    client.request({"type": "prompt", "id": "p1", "message": "run the slow thing"})
    client.event("tool_execution_start")
    client.request({"type": "follow_up", "id": "f", "message": "then write the docs"})
    refused = client.request({"type": "compact", "id": "c"})
    assert refused["success"] is False and "abort" in refused["error"]
    state = client.request({"type": "get_state", "id": "st"})["data"]
    assert state["isStreaming"] is True and state["pendingMessageCount"] == 1
    aborted = client.request({"type": "abort", "id": "a"})
    assert [m["content"] for m in aborted["data"]["messages"]] == ["then write the docs"]
    seen = client.close()
    assert not [line for line in seen if line["type"] == "compaction_start"]


def test_the_session_file_holds_every_message_of_the_run_in_order(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "fix-buggy-calc.yaml", repo="buggy-calc")
    client.request({"type": "prompt", "id": "p1", "message": "fix the bug"})
    ended = client.event("agent_end")
    listed = client.request({"type": "get_messages", "id": "m"})["data"]["messages"]
    seen = client.close()
    finished = [line["message"] for line in seen if line["type"] == "message_end"]
    stored = stored_messages(tmp_path / "session.jsonl")
    assert len(stored) == 10 and stored[0]["role"] == "system"  # the prompt, declared first
    assert stored == finished == listed == ended["messages"]


def test_a_bad_line_and_an_unknown_command_get_error_responses(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "fix-buggy-calc.yaml")
    client.send("{not json")
    parse = client.wait_for(lambda line: line.get("type") == "response")
    assert parse["command"] == "parse" and parse["success"] is False
    assert parse["error"].startswith("Failed to parse command: ")
    unknown = client.request({"type": "make_coffee", "id": "c"})
    assert unknown == {"id": "c", "type": "response", "command": "make_coffee",
                       "success": False, "error": "Unknown command: make_coffee"}
    missing = client.request({"type": "prompt", "id": "p"})
    assert missing["success"] is False and "'message'" in missing["error"]
    assert client.request({"type": "get_state", "id": "s"})["success"] is True
    client.close()


def test_each_bad_line_gets_one_error_response_and_the_server_goes_on(
        tmp_path: Path, data_dir: Path) -> None:
    client = start(tmp_path, data_dir, "read-greeting.yaml")
    assert client.process.stdin is not None
    bad = [b"\xff\xfe not utf-8\n", b'{"type": "get_state", "id": 1e400}\n',
           b'{"type": "get_state", "id": "\\ud800"}\n', b"[" * 100_000 + b"\n",
           b'{"type": "get_state", "id": NaN}\n', b"[1, 2]\n"]
    client.process.stdin.buffer.write(b"".join(bad))  # type: ignore[attr-defined]
    client.process.stdin.flush()
    answers = [client.wait_for(lambda line: line.get("type") == "response") for _ in bad]
    errors = sorted(a["error"].split(": ", 1)[1][:20] for a in answers if not a["success"])
    assert errors == ["NaN is not JSON", "expected a JSON obje", "nested deeper than 2",
                      "the line is not vali"]
    states = [a for a in answers if a["success"]]
    assert sorted(str(a.get("id")) for a in states) == ["None", "\ud800"]
    assert client.request({"type": "get_state", "id": "after"})["success"] is True
    client.close()


def test_a_broken_stdout_ends_the_server_with_one_error_line_and_code_1(
        tmp_path: Path, data_dir: Path) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # nobody reads: the first response cannot be written
    process = subprocess.Popen(
        [sys.executable, "-m", "pi.modes.main", "--mode", "rpc", "--cwd", str(tmp_path),
         "--agent-dir", str(tmp_path / "agent"), "--script",
         str(data_dir / "scripts" / "read-greeting.yaml")], cwd=SOURCE, env=agent_env(),
        stdin=subprocess.PIPE, stdout=writer, stderr=subprocess.PIPE, text=True)
    os.close(writer)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write('{"type": "get_state"}\n')
    process.stdin.flush()  # and stdin stays open: the server must end by itself
    assert process.wait(timeout=TIMEOUT) == 1
    assert process.stderr.read() == "error: [Errno 32] Broken pipe\n"
    process.stdin.close()
