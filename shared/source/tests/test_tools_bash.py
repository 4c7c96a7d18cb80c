"""`bash` reports exit codes, timeouts and aborts apart, and keeps the output's tail."""

import asyncio
import hashlib
import itertools
import json
import os
import re
import time
from pathlib import Path

import pytest

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortController, AbortSignal, ToolCall
from pi.coding_agent import BashTool, Workspace
from pi.coding_agent.tools.bash import Ending, report

STEP = 7


@pytest.fixture
def bash(tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "logs").mkdir()
    return BashTool(Workspace(tmp_path / "work"), temp_dir=tmp_path / "logs")


def call(tool, arguments, signal=None, on_update=lambda _: None, call_id="c1"):
    registry = ToolRegistry([tool])
    request = ToolCall(id=call_id, name=tool.name, arguments=arguments)
    return asyncio.run(run_tool_call(registry, request, signal or AbortSignal(), on_update,
                                     lambda: 0))


def text_of(message) -> str:
    return message.content[0].text


def pi_case(data_dir, name):
    cases = json.loads((data_dir / "pi-reference/expected/tools.json").read_text("utf-8"))
    return next(case for case in cases["toolCases"] if case["case"] == name)["result"]


def same_as_pi(message, want) -> bool:
    text = text_of(message)
    if not want["ok"]:
        return message.is_error and text == want["errorHead"]
    return not message.is_error and hashlib.sha256(text.encode()).hexdigest() == want["textSha256"]


@pytest.mark.parametrize(("name", "command"), [
    ("bash echo", "echo hi"), ("bash no output", "true"), ("bash exit 3", "echo oops; exit 3"),
    ("bash exit 3 no output", "exit 3"), ("bash stderr merged", "echo out; echo err 1>&2")])
def test_small_commands_answer_exactly_like_pi(data_dir, bash, name, command) -> None:
    assert same_as_pi(call(bash, {"command": command}), pi_case(data_dir, name))


def test_the_command_runs_in_the_workspace_root(bash) -> None:
    assert text_of(call(bash, {"command": "pwd -P"})) == f"{bash.workspace.root}\n"


def test_stdout_and_stderr_keep_their_arrival_order(bash) -> None:
    command = "echo 1; echo 2 >&2; echo 3; echo 4 >&2"
    assert text_of(call(bash, {"command": command})) == "1\n2\n3\n4\n"


def test_a_timeout_is_reported_as_a_timeout_with_the_output_so_far(bash) -> None:
    message = call(bash, {"command": "echo begun; sleep 5", "timeout": 0.5})
    assert message.is_error and text_of(message) == "begun\n\n\nCommand timed out after 0.5 seconds"


def test_a_shell_killed_by_a_signal_exits_with_128_plus_the_signal_as_in_pi(bash) -> None:
    message = call(bash, {"command": "echo before; kill -9 $$"})
    assert message.is_error  # Pi 1.6 answers the same: its command runs inside a shell
    assert text_of(message) == "before\n\n\nCommand exited with code 137"


def test_the_timeout_text_is_pis_for_whole_seconds(data_dir) -> None:
    want = pi_case(data_dir, "bash timeout")["errorHead"]  # Pi ran `sleep 5` with timeout 1
    with pytest.raises(TimeoutError, match=f"^{want}$"):
        report(Ending("timeout"), "", None, 1.0)


def test_an_abort_kills_the_whole_process_group(bash) -> None:
    controller = AbortController()

    def on_update(result) -> None:
        if "started" in result.content[0].text:
            controller.abort()

    command = "sleep 30 & echo started $!; wait"
    message = call(bash, {"command": command}, controller.signal, on_update)
    assert message.is_error and text_of(message).endswith("\n\nCommand aborted")
    child = int(re.search(r"started (\d+)", text_of(message))[1])
    assert not alive(child)


def alive(pid: int, within: float = 5.0) -> bool:
    """Whether `pid` is still running after `within` seconds (a zombie waiting to be reaped
    counts as dead). A killed process only dies once the scheduler runs it, which on a busy
    machine takes longer than a few hundred yields; one that was never killed stays alive."""
    status = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if status.read_text().split(")")[-1].split()[0] == "Z":
                return False
        except FileNotFoundError:
            return False
        time.sleep(0.01)
    return True


def test_a_pre_aborted_call_starts_no_process(bash) -> None:
    controller = AbortController()
    controller.abort()
    message = call(bash, {"command": "touch created.txt"}, controller.signal)
    assert message.is_error and text_of(message) == "Command aborted"
    assert not (bash.workspace.root / "created.txt").exists()


def test_a_long_output_keeps_its_tail_and_saves_the_whole_in_a_log(bash) -> None:
    message = call(bash, {"command": "seq 1 30000"}, call_id="call/7")
    log = bash.temp_dir / "pi-bash-call_7.log"
    text = text_of(message)
    assert text.startswith("28001\n") and text.endswith(
        f"30000\n\n[Showing lines 28001-30000 of 30000. Full output: {log}]")
    assert log.read_text() == "".join(f"{n}\n" for n in range(1, 30001))
    assert message.details["fullOutputPath"] == str(log)
    assert message.details["truncation"]["totalLines"] == 30000  # every line, as Pi 1.6 counts


def test_a_line_truncated_output_reads_as_pi_16s(bash) -> None:
    message = call(bash, {"command": "seq 1 3000"})  # the differential suite runs it in Pi too
    log = message.details["fullOutputPath"]
    shown = "\n".join(str(n) for n in range(1001, 3001))
    assert text_of(message) == f"{shown}\n\n[Showing lines 1001-3000 of 3000. Full output: {log}]"
    truncation = message.details["truncation"]
    assert (truncation["totalLines"], truncation["outputLines"], truncation["truncatedBy"]) == (
        3000, 2000, "lines")
    assert Path(log).read_text().count("\n") == 3000


def test_output_over_50kb_is_cut_by_bytes_at_a_line_boundary(bash) -> None:
    command = "head -c 60000 /dev/zero | tr '\\0' x; echo; echo last"
    text = text_of(call(bash, {"command": command}))
    assert text.startswith("last\n\n[Showing lines 2-2 of 2 (50.0KB limit). Full output: ")


def test_a_single_huge_last_line_keeps_its_end(bash) -> None:
    text = text_of(call(bash, {"command": "head -c 60000 /dev/zero | tr '\\0' y"}))
    body, notice = text.split("\n\n")
    assert body == "y" * 51200
    assert notice.startswith("[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: ")


def test_no_log_is_written_when_nothing_was_cut(bash) -> None:
    call(bash, {"command": "seq 1 10"})
    assert list(bash.temp_dir.iterdir()) == []


def test_progress_updates_carry_the_output_so_far(bash) -> None:
    seen: list[str] = []
    call(bash, {"command": "echo one; sleep 0.3; echo two"},
         on_update=lambda r: seen.append(text_of(r)))
    assert seen[0] == "one\n", "the first line is reported before the command ends"
    assert seen[-1] == "one\ntwo\n"
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(seen))


def test_the_timeout_must_be_positive(bash) -> None:
    assert call(bash, {"command": "true", "timeout": 0}).is_error


def ended_within(seconds: float, tool, arguments) -> tuple[object, bool]:
    """The tool's message, and whether it came back within `seconds` (a hang is a bug)."""
    import time
    start = time.monotonic()
    message = call(tool, arguments)
    return message, time.monotonic() - start < seconds


def test_the_timeout_holds_when_a_grandchild_in_its_own_session_keeps_the_pipe(bash) -> None:
    command = "setsid sleep 6 & echo $! > pid; sleep 6"
    message, in_time = ended_within(4, bash, {"command": command, "timeout": 1})
    assert in_time and message.is_error
    assert text_of(message).endswith("Command timed out after 1 seconds")
    os.kill(int((bash.workspace.root / "pid").read_text()), 9)  # leave nothing behind


def test_a_command_that_leaves_a_background_process_is_not_waited_for(bash) -> None:
    message, in_time = ended_within(4, bash, {"command": "sleep 6 & echo $! > pid; echo done"})
    assert in_time and not message.is_error and text_of(message) == "done\n"
    os.kill(int((bash.workspace.root / "pid").read_text()), 9)


@pytest.mark.parametrize(("timeout", "said"), [(1.0, "1"), (0.5, "0.5"), (1234567.0, "1234567")])
def test_a_timeout_is_named_in_seconds_as_pi_prints_the_number(timeout, said) -> None:
    with pytest.raises(TimeoutError) as raised:
        report(Ending("timeout"), "", None, timeout)
    assert str(raised.value) == f"Command timed out after {said} seconds"  # never 1.23457e+06
