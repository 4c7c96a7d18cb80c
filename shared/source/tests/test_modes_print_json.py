"""`pi-agent` in print and json mode, its help, and its one-line errors.

The runs go through the real command in a subprocess; the help and the refusals are checked
in-process with typer's CliRunner, which is enough for what they print.
"""

import io
import json
import shutil
from pathlib import Path

from rpc_client import RpcClient, agent_env, run_agent
from typer.testing import CliRunner

from mock_model import MockModel, fail, text, turn
from pi.ai import MockProvider, Model, Providers
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import fixed_clock, sequential_ids
from pi.modes.main import app
from pi.modes.print_mode import run_print

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


def test_json_mode_writes_one_event_per_line_ending_with_agent_end_then_agent_settled(
        tmp_path: Path, data_dir: Path) -> None:
    done = run_agent("--mode", "json", *fixture_args(tmp_path, data_dir), "fix it")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["id"] == "00000001"
    assert lines[1]["type"] == "agent_start" and lines[-2]["type"] == "agent_end"
    assert lines[-2]["messages"][-1]["content"][0]["text"] == FINAL
    assert lines[-1] == {"type": "agent_settled", "aborted": False}


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
                   "PI_COURSE_DETERMINISTIC=1", "Real-model use", "openai/gpt-5.4-mini",
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
        ("--model", "openai/gpt-5.4-mini", "-p", "hi"): "no API key for openai",
        ("--model", "openai/gpt-5.4-mini", "--script", str(bad_script), "-p", "hi"):
            "--script drives the MockModel",
        ("--script", str(bad_script), "-p", "hi"): "turns[0]: unknown field 'txt'",
        ("--mode", "json"): "json mode needs a prompt",
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


def long_script(tmp_path: Path, turns: int) -> Path:
    """A MockModel script of `turns` turns: each but the last lists the folder."""
    lines = ["turns:"]
    for number in range(1, turns):
        lines.append(f"  - parts: [{{text: \"turn {number}\"}}, "
                     f"{{toolCall: {{name: ls, arguments: {{path: .}}}}}}]")
    lines.append(f"  - text: \"done after {turns} turns\"")
    script = tmp_path / "long.yaml"
    script.write_text("\n".join(lines) + "\n")
    return script


def long_run_args(tmp_path: Path, turns: int, *extra: str) -> list[str]:
    return ["--script", str(long_script(tmp_path, turns)), "--cwd", str(tmp_path),
            "--agent-dir", str(tmp_path / "agent"), *extra]


# shared/tests/test_long_run.py runs 200 turns through the installed command; here the runs
# stay short, because a practice copy gives each test five seconds.
def test_a_run_longer_than_the_loops_own_default_completes_as_the_agent_sets_no_limit(
        tmp_path: Path) -> None:
    code, out, err = invoke("-p", *long_run_args(tmp_path, 60), "go")
    assert (code, out, err) == (0, "done after 60 turns\n", "")


def test_a_run_stopped_by_max_turns_says_so_on_stderr_and_exits_1(tmp_path: Path) -> None:
    code, out, err = invoke("-p", *long_run_args(tmp_path, 12, "--max-turns", "5"), "go")
    assert (code, out) == (1, "turn 5\n")
    assert err == ("stopped: the run reached its limit of 5 turns (--max-turns 5) "
                   "before the model finished\n")
    assert invoke("-p", *long_run_args(tmp_path, 12, "--max-turns", "12"), "go")[0] == 0


def test_json_mode_reports_the_turn_limit_as_an_event_after_agent_end(tmp_path: Path) -> None:
    done = run_agent("--mode", "json", *long_run_args(tmp_path, 12, "--max-turns", "3"), "go")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events[-3:]]
    assert kinds == ["agent_end", "turn_limit_reached", "agent_settled"]
    assert events[-2]["maxTurns"] == 3 and "limit of 3 turns" in events[-2]["message"]


def test_rpc_mode_reports_the_turn_limit_as_an_event_after_agent_end(tmp_path: Path) -> None:
    client = RpcClient(*long_run_args(tmp_path, 12, "--max-turns", "2"))
    client.request({"id": "p1", "type": "prompt", "message": "go"})
    client.event("agent_end")
    limit = client.event("turn_limit_reached")
    assert limit["maxTurns"] == 2
    client.close()


def test_max_turns_below_one_is_refused_in_one_line(tmp_path: Path) -> None:
    code, out, err = invoke("-p", "--max-turns", "0", "--cwd", tmp_path, "hi")
    assert (code, out) == (2, "") and "--max-turns 0: give at least 1" in err


def test_version_prints_one_line_and_exits_0() -> None:
    code, out, _ = invoke("--version")
    assert code == 0 and out.startswith("pi-agent ") and len(out.splitlines()) == 1


def test_print_mode_announces_each_retry_on_stderr_with_the_wait_and_the_attempt(
        tmp_path: Path, data_dir: Path) -> None:
    waits: list[int] = []

    async def sleep(ms: int) -> None:
        waits.append(ms)

    refused = fail("server_error", message="connection refused")
    mock = MockModel([refused, refused, turn(text("back"))])
    runtime = Runtime(RuntimeConfig(
        cwd=tmp_path, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock"), clock=fixed_clock(0),
        ids=sequential_ids(), session_file=tmp_path / "s.jsonl", agent_dir=tmp_path / "agent",
        system_prompt="test", sleep=sleep))
    out, err = io.StringIO(), io.StringIO()
    assert run_print(runtime, ["hi"], out, err) == 0
    assert out.getvalue() == "back\n"
    notes = err.getvalue().splitlines()
    assert len(notes) == 2 and waits == [2000, 4000]
    assert notes[0].startswith("retrying in 2 s (attempt 1 of 3): ")
    assert notes[1].startswith("retrying in 4 s (attempt 2 of 3): ")
    assert all("connection refused" in note for note in notes)


def test_continue_goes_on_with_the_latest_session_and_resume_asks_which(tmp_path: Path) -> None:
    agent = ["--agent-dir", str(tmp_path / "agent"), "--cwd", str(tmp_path)]
    assert invoke("-p", "first", *agent)[0] == 0 and invoke("-p", "second", *agent)[0] == 0
    assert invoke("--continue", "-p", "third", *agent)[0] == 0
    [folder] = (tmp_path / "agent" / "sessions").iterdir()
    older, newer = sorted(folder.iterdir(), key=lambda path: path.stat().st_mtime)
    assert "third" in newer.read_text() and "third" not in older.read_text()
    result = CliRunner().invoke(app, ["-r", "-p", "fourth", *agent], input="2\n", env=PLAIN)
    assert result.exit_code == 0 and "fourth" in older.read_text()
    result = CliRunner().invoke(app, ["-r", "-p", "fifth", *agent], input="9\n", env=PLAIN)
    assert result.exit_code == 2 and "'9' is not a number from 1 to 2" in result.stderr
    result = CliRunner().invoke(app, ["-r", "-p", "sixth", *agent], input="", env=PLAIN)
    assert result.exit_code == 2 and "'' is not a number from 1 to 2" in result.stderr


def test_a_reply_cut_at_its_output_limit_prints_its_text_then_says_so_and_exits_1(
        tmp_path: Path) -> None:
    # At the model's limit (16,384 tokens): below it, Pi 1.6 compacts and retries instead.
    mock = MockModel([turn(text("The first half of"), stop_reason="length",
                           usage={"output": 16_384})])
    runtime = Runtime(RuntimeConfig(
        cwd=tmp_path, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock"), clock=fixed_clock(0),
        ids=sequential_ids(), session_file=tmp_path / "s.jsonl", agent_dir=tmp_path / "agent",
        system_prompt="test"))
    out, err = io.StringIO(), io.StringIO()
    assert run_print(runtime, ["hi"], out, err) == 1
    assert out.getvalue() == "The first half of\n"
    assert err.getvalue() == "Response was truncated: the model reached its output token limit.\n"


def test_a_cwd_holding_a_terminal_escape_is_named_with_the_escape_shown_not_sent(
        tmp_path: Path) -> None:
    code, out, err = invoke("-p", "hi", "--cwd", "\x1b[31mred", "--agent-dir", tmp_path)
    assert (code, out) == (2, "") and "\x1b" not in err
    assert err.strip() == "error: --cwd \\x1b[31mred: not a folder"


def test_a_bad_skill_is_one_warning_line_with_one_warning_prefix(tmp_path: Path) -> None:
    skill = tmp_path / "agent" / "skills" / "bad" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: bad\n---\nNo description.\n")
    code, _, err = invoke("-p", "hi", "--cwd", tmp_path, "--agent-dir", tmp_path / "agent",
                          "--session", tmp_path / "s.jsonl")
    assert (code, err) == (0, f"warning: {skill}: description is required\n")
