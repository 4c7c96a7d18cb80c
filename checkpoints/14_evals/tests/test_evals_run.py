"""One case on one checkpoint, phase by phase: a fresh workspace, one outcome, cleanup.

Most tests use fake drivers (see eval_fakes.py) that crash, hang or lie on purpose; the last
ones run this checkpoint's real eval driver on the shared buggy-calc fixture.
"""

import itertools
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from eval_fakes import SIMPLE_CASE, fake_driver, write_case

from course import eval_case
from course.evals.cases import Case, load_case
from course.evals.phases import Settings, Target, run_case

STEP = 14

REAL_DRIVER = ("-c", "import typer; from course.eval_driver import eval_driver; "
               "typer.run(eval_driver)")
HERE = Path(__file__).resolve().parent.parent


def scratch_in(root: Path) -> Callable[[], Path]:
    """Run folders named run-1, run-2, … under `root`: chosen by the test, never random."""
    counter = itertools.count(1)

    def make() -> Path:
        folder = root / f"run-{next(counter)}"
        folder.mkdir(parents=True)
        return folder

    return make


@pytest.fixture
def case(tmp_path: Path) -> Case:
    (tmp_path / "workspaces" / "tiny").mkdir(parents=True)
    (tmp_path / "workspaces" / "tiny" / "a.txt").write_text("a", encoding="utf-8")
    text = SIMPLE_CASE.format(id="tiny") + "workspace: tiny\n"
    return load_case(write_case(tmp_path / "cases", "tiny", text))


def run(case: Case, tmp_path: Path, **plan: Any) -> Any:
    timeout = plan.pop("timeout", 20.0)
    settings = Settings(timeout=timeout, make_folder=scratch_in(tmp_path / "runs"),
                        driver=fake_driver(tmp_path / "driver", **plan))
    return run_case(case, Target(tmp_path, 14), settings)


def test_a_good_observation_that_the_judges_accept_passes(case: Case, tmp_path: Path) -> None:
    outcome = run(case, tmp_path)
    assert (outcome.status, outcome.phase, outcome.code) == ("passed", None, None)
    assert outcome.stats["messages"] == {"assistant": 1, "user": 1}
    assert not list((tmp_path / "runs").iterdir()), "the run folder is disposed"


def test_every_run_starts_from_a_fresh_copy_of_the_template(case: Case, tmp_path: Path) -> None:
    settings = Settings(make_folder=scratch_in(tmp_path / "runs"),
                        driver=fake_driver(tmp_path / "driver", write={"leak.txt": "x"}))
    for _ in range(2):
        outcome = run_case(case, Target(tmp_path, 14), settings)
        assert outcome.status == "passed"
    assert (tmp_path / "workspaces" / "tiny").is_dir()
    assert sorted(p.name for p in (tmp_path / "workspaces" / "tiny").iterdir()) == ["a.txt"]


@pytest.mark.parametrize(("plan", "phase", "code"), [
    ({"exit": 3, "stderr": "Traceback...\nImportError: no pi"}, "execute", "driver_crashed"),
    ({"exit": 2, "stderr": "error: case.json: resume: not something step 08 can do"},
     "execute", "case_refused"),
    ({"stdout": "hello, not json"}, "collect", "bad_observation"),
    ({"observation": {"contract": 2}}, "collect", "bad_observation"),
    ({"observation": {"transcript": [{"no": "role"}]}}, "collect", "bad_observation"),
    ({"sleep": 5, "timeout": 0.5}, "execute", "driver_timeout"),
])
def test_a_driver_without_an_honest_observation_is_an_infra_failure(
    case: Case, tmp_path: Path, plan: dict[str, Any], phase: str, code: str
) -> None:
    outcome = run(case, tmp_path, **plan)
    assert (outcome.status, outcome.phase, outcome.code) == ("infra_failed", phase, code)
    assert not list((tmp_path / "runs").iterdir()), "cleanup runs whatever happened"


def test_a_crash_in_a_practice_stub_is_infra_and_names_the_exercise(
    case: Case, tmp_path: Path
) -> None:
    crash = {"terminal": "crashed", "error": "NotImplementedError: exercise 06-turns: Loop …"}
    outcome = run(case, tmp_path, observation=crash)
    assert (outcome.status, outcome.code, outcome.exercise) == (
        "infra_failed", "agent_crashed", "06-turns")


def test_a_stub_that_a_tool_ran_into_is_named_on_a_failed_task(case: Case, tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.txt"}}
    stubbed = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": True,
               "content": [{"type": "text", "text": "exercise 07-workspace-path: Strip…"}]}
    path = [{"role": "user", "content": "x"}, {"role": "assistant", "content": [call]}, stubbed,
            {"role": "assistant", "content": [{"type": "text", "text": "I could not read it."}]}]
    outcome = run(case, tmp_path, observation={"transcript": path})
    assert (outcome.status, outcome.exercise) == ("task_failed", "07-workspace-path")


def test_a_broken_protocol_is_reported_before_the_judges_run(case: Case, tmp_path: Path) -> None:
    orphan = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [],
              "isError": False, "timestamp": 0}
    outcome = run(case, tmp_path, observation={"transcript": [orphan]})
    assert (outcome.status, outcome.code) == ("protocol_failed", "no_orphan_results")
    assert all(not check.name.startswith("final") for check in outcome.checks)


def test_a_judge_saying_no_is_a_task_failure(case: Case, tmp_path: Path) -> None:
    outcome = run(case, tmp_path, observation={"transcript": [{"role": "user", "content": "x"}]})
    assert (outcome.status, outcome.phase, outcome.code) == (
        "task_failed", "judge", "final_text_contains")


def test_a_cleanup_failure_is_secondary_and_keeps_the_verdict(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stuck(path: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError("busy")

    monkeypatch.setattr("course.evals.workspace.shutil.rmtree", stuck)
    outcome = run(case, tmp_path)
    assert (outcome.status, outcome.secondary) == ("passed", ("cleanup_failed",))


@pytest.fixture
def bugfix(tmp_path: Path, data_dir: Path) -> Case:
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", tmp_path / "workspaces" / "buggy-calc")
    shutil.copytree(data_dir / "scripts", tmp_path / "scripts")
    text = """\
id: fix-buggy-calc
first_checkpoint: 7
prompt: "test_calc.py fails. Please fix the bug."
workspace: buggy-calc
script: fix-buggy-calc.yaml
tools: [read, edit, bash]
files: [calc.py]
judges:
  - read_before_edit: calc.py
  - command: "python test_calc.py"
  - model_graded: {rubric: "The bug is fixed.", turns: [{text: "PASS"}]}
"""
    return load_case(write_case(tmp_path / "cases", "fix", text))


def test_the_real_driver_of_this_checkpoint_fixes_the_fixture(bugfix: Case, tmp_path: Path) -> None:
    settings = Settings(make_folder=scratch_in(tmp_path / "runs"), driver=(sys.executable,
                                                                           *REAL_DRIVER))
    outcome = run_case(bugfix, Target(HERE, eval_case.STEP), settings)
    assert outcome.status == "passed", outcome
    assert [c.name for c in outcome.checks][-3:] == ["read_before_edit", "command", "model_graded"]
    assert "a - b" in (tmp_path / "workspaces" / "buggy-calc" / "calc.py").read_text()


def test_a_case_that_writes_into_its_template_fails_naming_it_and_the_template_is_restored(
    tmp_path: Path,
) -> None:
    template = tmp_path / "workspaces" / "plain"
    template.mkdir(parents=True)
    (template / "notes.txt").write_text("original\n", encoding="utf-8")
    text = f"""\
id: polluter
first_checkpoint: 7
prompt: "Write into the template."
workspace: plain
tools: [bash]
turns:
  - toolCall:
      name: bash
      arguments: {{command: "echo changed > {template}/notes.txt; touch {template}/new.txt"}}
  - text: "done"
"""
    case = load_case(write_case(tmp_path / "cases", "polluter", text))
    settings = Settings(make_folder=scratch_in(tmp_path / "runs"), driver=(sys.executable,
                                                                           *REAL_DRIVER))
    outcome = run_case(case, Target(HERE, eval_case.STEP), settings)
    assert (outcome.status, outcome.code) == ("protocol_failed", "template_unchanged")
    assert "workspaces/plain" in outcome.checks[0].detail
    assert sorted(p.name for p in template.iterdir()) == ["notes.txt"]
    assert (template / "notes.txt").read_text(encoding="utf-8") == "original\n"


def test_a_driver_crash_carries_its_exit_code_and_last_stderr_lines(case: Case,
                                                                    tmp_path: Path) -> None:
    outcome = run(case, tmp_path, exit=3, stderr="first\nsecond\nBoom: disk on fire\n")
    assert (outcome.status, outcome.code) == ("infra_failed", "driver_crashed")
    assert outcome.reason is not None
    assert "exit 3" in outcome.reason and "Boom: disk on fire" in outcome.reason
