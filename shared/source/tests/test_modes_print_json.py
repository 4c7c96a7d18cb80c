"""Step 13: `pi-agent` in print and json mode, its help, and its one-line errors.

The runs go through the real command in a subprocess; the help and the refusals are checked
in-process with typer's CliRunner, which is enough for what they print.
"""

import json
import shutil
from pathlib import Path

from rpc_client import agent_env, run_agent
from typer.testing import CliRunner

from pi.agent_main import app

STEP = 13
PLAIN = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb", "OPENAI_API_KEY": None,
         "ANTHROPIC_API_KEY": None, "PI_COURSE_DETERMINISTIC": None}
FINAL = "Fixed: `add` in calc.py returned `a - b`; it now returns `a + b`, and both tests pass."


def invoke(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args], env=PLAIN)
    return result.exit_code, result.stdout, result.stderr


def fixture_args(tmp_path: Path, data_dir: Path) -> list[str]:
    repo = tmp_path / "repo"
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", repo)
    return ["--script", str(data_dir / "scripts" / "fix-buggy-calc.yaml"), "--cwd", str(repo),
            "--session", str(tmp_path / "session.jsonl"), "--agent-dir", str(tmp_path / "agent")]


def test_print_mode_prints_only_the_final_text(tmp_path: Path, data_dir: Path) -> None:
    done = run_agent("-p", *fixture_args(tmp_path, data_dir), "test_calc.py fails, fix it")
    assert (done.returncode, done.stdout, done.stderr) == (0, FINAL + "\n", "")


def test_json_mode_writes_one_event_per_line_ending_with_agent_end(
        tmp_path: Path, data_dir: Path) -> None:
    done = run_agent("--mode", "json", *fixture_args(tmp_path, data_dir), "fix it")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["id"] == "00000001"
    assert lines[1]["type"] == "agent_start" and lines[-1]["type"] == "agent_end"
    assert lines[-1]["messages"][-1]["content"][0]["text"] == FINAL


def test_without_a_script_or_a_key_print_mode_answers_offline(tmp_path: Path) -> None:
    env = agent_env(HOME=str(tmp_path))
    done = run_agent("-p", "hello", "--cwd", str(tmp_path), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == '(offline MockModel, no script) You said: "hello"\n'
    sessions = list((tmp_path / ".pi-course" / "agent" / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1, "the run was recorded in the course's own folder"


def test_help_explains_offline_and_real_model_use() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    for phrase in ("Offline use", "mock/mock-1", "--script", "built-in policy",
                   "PI_COURSE_DETERMINISTIC=1", "Real-model use", "openai/gpt-4.1-mini",
                   "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "--mode", "rpc"):
        assert phrase in out, phrase


def test_a_scripted_run_writes_the_same_session_file_every_time(
        tmp_path: Path, data_dir: Path) -> None:
    files = []
    for name in ("first", "again"):
        run = tmp_path / name
        run.mkdir()
        assert invoke("-p", *fixture_args(run, data_dir), "fix it")[0] == 0
        files.append((run / "session.jsonl").read_text().replace(str(run), "<run>"))
    assert files[0] == files[1]


def test_mistakes_are_one_line_and_exit_code_2(tmp_path: Path, data_dir: Path) -> None:
    agent = ["--agent-dir", str(tmp_path / "agent"), "--cwd", str(tmp_path)]
    bad_script = tmp_path / "bad.yaml"
    bad_script.write_text("turns:\n  - txt: hi\n")
    cases = {
        ("--model", "nobody/x", "-p", "hi"): "unknown provider 'nobody'",
        ("--model", "openai/gpt-4.1-mini", "-p", "hi"): "no API key for openai",
        ("--model", "openai/gpt-4.1-mini", "--script", str(bad_script), "-p", "hi"):
            "--script drives the MockModel",
        ("--script", str(bad_script), "-p", "hi"): "turns[0]: unknown field 'txt'",
        ("--mode", "json"): "json mode needs a prompt",
        ("--session", str(tmp_path / "new.jsonl"), "--leaf", "a1", "-p", "hi"):
            "--leaf needs an existing --session file",
        ("--session", str(tmp_path / "s.jsonl"), "--leaf", "nope", "-p", "hi"):
            "no entry with id nope",
    }
    assert invoke("--session", tmp_path / "s.jsonl", "-p", "hi", *agent)[0] == 0
    for args, expected in cases.items():
        code, out, err = invoke(*args, *agent)
        assert (code, out) == (2, ""), args
        assert expected in err and len(err.strip().splitlines()) == 1, err


def test_a_missing_extension_file_given_with_e_is_one_error_not_ignored(
        tmp_path: Path, data_dir: Path) -> None:
    code, out, err = invoke(*fixture_args(tmp_path, data_dir), "-e", "missing.py", "-p", "hi")
    assert code == 2 and out == ""
    assert err.strip() == "error: -e missing.py: no such extension file"


def test_a_session_path_that_is_a_link_loop_is_one_error(tmp_path: Path, data_dir: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    args = fixture_args(tmp_path, data_dir)
    args[args.index("--session") + 1] = str(loop)
    code, out, err = invoke(*args, "-p", "hi")
    assert code == 2 and out == "" and err.startswith(f"error: --session {loop}:")
    assert err.count("\n") == 1
