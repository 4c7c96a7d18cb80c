"""The eval driver reports one run as one contract-1 observation, whatever happens.

The harness of step 14 measures every checkpoint from 06 on through this driver, so these
tests pin the contract: the shape of the observation, that it is byte-reproducible, that a
crash in the agent is observed (not raised), and that a case the step cannot run is refused
with exit code 2 and one line.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from course import eval_case
from course.eval_case import CaseError, tool_registry
from course.eval_driver import drive, eval_driver
from pi.agent.tool_batch import ToolBatch

STEP = 6

ROUND_TRIP: dict[str, Any] = {
    "id": "round-trip",
    "prompt": "Ask the echo tool for ping.",
    "tools": ["echo"],
    "script": {"turns": [{"parts": [{"text": "Asking."},
                                    {"toolCall": {"name": "echo", "arguments": {"text": "ping"}}}]},
                         {"text": "It said ping."}]},
}


def observe(case: dict[str, Any], workspace: Path) -> dict[str, Any]:
    return asyncio.run(drive(case, workspace))


def conversation(seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript without the system message that declares the prompt (from step 13)."""
    return [message for message in seen["transcript"] if message["role"] != "system"]


def test_a_round_trip_is_observed_as_one_contract_json_object(tmp_path: Path) -> None:
    seen = observe(ROUND_TRIP, tmp_path)
    required = {"contract", "step", "terminal", "error", "transcript", "session", "events"}
    assert required <= set(seen) <= required | {"history", "rpc"}, "the contract only grows"
    assert (seen["contract"], seen["terminal"], seen["error"]) == (1, "completed", None)
    assert seen["step"] >= 6
    assert [m["role"] for m in conversation(seen)] == ["user", "assistant", "toolResult",
                                                       "assistant"]
    declared = ["system"] if eval_case.STEP >= 13 else []  # the runtime records the prompt
    assert [m["role"] for m in seen["transcript"]][:len(declared) + 1] == [*declared, "user"]
    assert conversation(seen)[2]["content"] == [{"type": "text", "text": "ping"}]
    assert seen["events"]["tool_execution_start"] == 1
    assert seen["events"]["turn_start"] == 2
    assert list(seen["events"]) == sorted(seen["events"])


def test_the_observation_is_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    first = json.dumps(observe(ROUND_TRIP, tmp_path), sort_keys=True)
    assert json.dumps(observe(ROUND_TRIP, tmp_path), sort_keys=True) == first


def test_a_crash_inside_the_agent_is_observed_and_names_the_exercise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def stub(self: ToolBatch, *args: object) -> list[object]:
        raise NotImplementedError("exercise 06-call-order: run the calls")

    monkeypatch.setattr(ToolBatch, "run", stub)
    seen = observe(ROUND_TRIP, tmp_path)
    assert seen["terminal"] == "crashed"
    assert seen["error"] == "NotImplementedError: exercise 06-call-order: run the calls"
    assert [m["role"] for m in conversation(seen)] == ["user", "assistant"]


def test_a_failed_reply_ends_the_run_in_error(tmp_path: Path) -> None:
    case = {"prompt": "Hi", "script": {"turns": [{"fail": "server_error"}]}}
    seen = observe(case, tmp_path)
    assert seen["terminal"] == "error" and seen["error"].startswith("500")


def test_the_turn_limit_is_its_own_ending(tmp_path: Path) -> None:
    seen = observe({**ROUND_TRIP, "max_turns": 1}, tmp_path)
    assert seen["terminal"] == "max_turns" and "max_turns_exceeded" in seen["error"]


def test_an_abort_action_fires_on_its_event_and_ends_the_run_aborted(tmp_path: Path) -> None:
    case = {**ROUND_TRIP, "actions": [{"event": "tool_execution_start", "abort": True}]}
    seen = observe(case, tmp_path)
    assert seen["terminal"] == "aborted"
    roles = [message["role"] for message in conversation(seen)]
    # From step 08 the loop asks once more after an abort during the tools, as Pi's does; the
    # aborted signal answers with an `aborted` reply before any request leaves.
    after = ["assistant"] if eval_case.STEP >= 8 else []
    assert roles == ["user", "assistant", "toolResult", *after]
    assert all(m["stopReason"] == "aborted" for m in conversation(seen)[3:])


def test_an_unknown_tool_is_refused_naming_the_tools_of_this_step(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=rf"'nope' is not a tool at step {eval_case.STEP}.*echo"):
        tool_registry(["nope"], tmp_path)


def run_cli(tmp_path: Path, case: object) -> Any:
    file = tmp_path / "case.json"
    file.write_text(case if isinstance(case, str) else json.dumps(case), encoding="utf-8")
    app = typer.Typer()
    app.command()(eval_driver)
    return CliRunner().invoke(app, ["--case", str(file), "--workspace", str(tmp_path)])


def test_the_command_prints_the_observation_as_one_json_line(tmp_path: Path) -> None:
    result = run_cli(tmp_path, ROUND_TRIP)
    assert result.exit_code == 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["terminal"] == "completed"


@pytest.mark.parametrize(("case", "named"), [
    ("{not json", "not valid JSON"),
    ({"prompt": "Hi"}, "exactly one of script"),
    ({**ROUND_TRIP, "resume_from": "x"}, "resume_from: not something step"),
    ({**ROUND_TRIP, "tools": ["nope"]}, "'nope' is not a tool"),
    ({**ROUND_TRIP, "actions": [{"event": "turn_end", "dance": 1}]}, "actions[0]"),
    ({**ROUND_TRIP, "script": {"turns": [{"txt": "Hi"}]}}, "script: turns[0]"),
])
def test_a_case_this_step_cannot_run_exits_2_with_one_line(
    tmp_path: Path, case: object, named: str
) -> None:
    result = run_cli(tmp_path, case)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and named in result.stderr


def test_a_real_model_is_an_openai_compatible_endpoint_from_the_environment(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LOCAL_LLM_API_KEY", "sk-test")
    model, _, options = eval_case.boundary({"model": "local-llm/tiny-1"})
    assert (model.provider, model.id, model.api) == ("local-llm", "tiny-1", "openai-completions")
    assert model.base_url == "http://127.0.0.1:9/v1" and options.api_key == "sk-test"


def test_an_unreachable_real_model_is_an_error_ending_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LOCAL_LLM_API_KEY", "sk-test-secret")
    seen = observe({"prompt": "Hi", "model": "local-llm/tiny-1"}, tmp_path)
    assert seen["terminal"] == "error" and seen["error"]
    assert "sk-test-secret" not in json.dumps(seen)
