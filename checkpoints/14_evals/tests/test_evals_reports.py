"""Reports hold counts and categories only, compare byte for byte, and catch regressions.

The command line is driven against fake checkpoints (folders whose `python -m course eval-driver`
is a fake driver), so these tests measure the harness, not a real agent.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from eval_fakes import SIMPLE_CASE, fake_checkpoint, write_case
from typer.testing import CliRunner

from course.evals.judges import judge_view, model_judge
from course.evals.matrix import pass_at_k
from course.evals_cli import evals_app

STEP = 14

SECRET_CASE = """\
id: secret
first_checkpoint: 7
prompt: "The token is sk-SECRET-123; say what you found."
turns: [{text: "x"}]
judges:
  - final_text_contains: "found:"
"""


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    suite = tmp_path / "suite"
    write_case(suite, "simple", SIMPLE_CASE.format(id="simple"))
    write_case(suite, "secret", SECRET_CASE)
    checkpoints = tmp_path / "checkpoints"
    for name in ("05_tools", "06_loop", "07_coding-tools"):
        fake_checkpoint(checkpoints / name)
    return {"suite": suite, "checkpoints": checkpoints, "out": tmp_path / "out"}


def evals(*args: str) -> Any:
    return CliRunner().invoke(evals_app, ["run", *args])


def matrix(paths: dict[str, Path], *more: str) -> Any:
    return evals("--suite", str(paths["suite"]), "--checkpoints", str(paths["checkpoints"]),
                 "--jobs", "2", *more)


def test_the_matrix_runs_each_case_where_it_applies(layout: dict[str, Path]) -> None:
    report = layout["out"] / "r.json"
    result = matrix(layout, "--report", str(report))
    assert result.exit_code == 0, result.stdout
    data = json.loads(report.read_text())
    assert list(data["checkpoints"]) == ["06", "07"], "05 has no eval driver"
    cells = [(r["case"], r["checkpoint"]) for r in data["results"]]
    assert cells == [("secret", "07"), ("simple", "06"), ("simple", "07")]
    assert data["summary"] == {"passed": 3, "task_failed": 0, "protocol_failed": 0,
                               "infra_failed": 0}


def test_two_runs_give_byte_identical_reports_without_paths_texts_or_secrets(
    layout: dict[str, Path]
) -> None:
    first, second = layout["out"] / "1.json", layout["out"] / "2.json"
    matrix(layout, "--report", str(first))
    matrix(layout, "--report", str(second))
    text = first.read_text()
    assert second.read_text() == text
    assert json.loads(text)["version"] == 1
    for leak in (str(layout["suite"].parent), "sk-SECRET", "found:", "Say what"):
        assert leak not in text


def test_a_regression_against_the_baseline_fails_and_says_what_changed(
    layout: dict[str, Path]
) -> None:
    base = layout["out"] / "base.json"
    assert matrix(layout, "--write-baseline", str(base)).exit_code == 0
    fake_checkpoint(layout["checkpoints"] / "07_coding-tools", observation={"terminal": "error"})
    result = matrix(layout, "--baseline", str(base))
    assert result.exit_code == 1
    assert "regression: simple @ 07: passed → protocol_failed" in result.stdout
    assert json.loads(base.read_text())["summary"]["passed"] == 3, "the baseline is unchanged"


def test_known_failures_in_the_baseline_do_not_fail_the_comparison(
    layout: dict[str, Path]
) -> None:
    fake_checkpoint(layout["checkpoints"] / "07_coding-tools", exit=3)
    base = layout["out"] / "base.json"
    assert matrix(layout, "--write-baseline", str(base)).exit_code == 1
    assert matrix(layout, "--baseline", str(base)).exit_code == 0


@pytest.mark.parametrize(("args", "named"), [
    (["--suite", "nowhere", "--checkpoints", "."], "no such suite folder"),
    (["--target", "not_a_checkpoint"], "not a checkpoint (NN_slug) or a practice copy"),
    (["--baseline", "missing.json"], "missing.json"),
    (["--checkpoints", "checkpoints", "--case", "nope"], "--case nope: no case with that id"),
])
def test_bad_input_is_one_line_and_exit_code_2(
    layout: dict[str, Path], args: list[str], named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(layout["suite"].parent)
    if "--suite" not in args:
        args = ["--suite", "suite", *args]
    if "--baseline" in args:
        args += ["--checkpoints", "checkpoints"]
    result = evals(*args)
    assert result.exit_code == 2
    assert named in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_broken_case_file_stops_the_run_with_its_line_intact(layout: dict[str, Path]) -> None:
    write_case(layout["suite"], "broken", SIMPLE_CASE.format(id="broken").replace(
        "final_text_contains", "looks_good"))
    result = matrix(layout)
    assert result.exit_code == 2
    assert "broken.yaml: judges[0]: expected one of" in result.stderr


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(5, 0, 1) == 0.0 and pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)   # 1 - C(3,2)/C(4,2)
    assert pass_at_k(3, 2, 2) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_repeats_report_runs_passes_and_pass_at_k(layout: dict[str, Path]) -> None:
    report = layout["out"] / "r.json"
    matrix(layout, "--repeats", "3", "--case", "simple", "--report", str(report))
    entry = json.loads(report.read_text())["results"][0]
    assert (entry["runs"], entry["passes"], entry["pass_at_k"]) == (3, 3, {"1": 1.0, "3": 1.0})


@pytest.mark.parametrize(("answer", "passed", "detail"), [
    ("PASS", True, ""), ("FAIL: the tests were never run", False, "the tests were never run"),
    ("Looks fine to me", False, "no PASS/FAIL verdict"),
])
def test_the_model_graded_judge_goes_through_the_model_boundary(
    answer: str, passed: bool, detail: str
) -> None:
    view = judge_view([{"role": "user", "content": "fix", "timestamp": 0}], {"a.py": "x"})
    check = model_judge(None)({"rubric": "fixed?", "turns": [{"text": answer}]}, view)
    assert (check.name, check.passed, check.detail) == ("model_graded", passed, detail)


def test_an_infra_failure_shows_its_reason_in_the_cli_and_the_json(
    tmp_path: Path
) -> None:
    suite = tmp_path / "suite"
    write_case(suite, "simple", SIMPLE_CASE.format(id="simple"))
    checkpoints = tmp_path / "checkpoints"
    fake_checkpoint(checkpoints / "06_loop", exit=5, stderr="Traceback\nKeyError: 'turns'\n")
    report = tmp_path / "r.json"
    result = evals("--suite", str(suite), "--checkpoints", str(checkpoints), "--report",
                   str(report))
    assert result.exit_code == 1
    assert "driver_crashed" in result.stdout and "KeyError: 'turns'" in result.stdout
    entry = json.loads(report.read_text())["results"][0]
    assert entry["code"] == "driver_crashed" and "exit 5" in entry["reason"]
