"""`pi-course eval --model openai/ID --fresh SEED` against the MockModel's HTTP server.

The real-model path is the one a workshop uses with a paid endpoint; here the endpoint is
`python -m mock_model serve`, reached through OPENAI_BASE_URL and OPENAI_API_KEY exactly as
`pi-agent` reads them. Two runs with seed 7 use byte-identical fixtures (the report's
`fixture` fingerprints are equal); seed 8 uses another one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASE = (ROOT / "evals" / "cases" / "fix-buggy-calc.yaml").read_text(encoding="utf-8")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "answers.yaml"
    script.write_text("turns:\n" + '  - text: "PASS: I looked at the files."\n' * 12,
                      encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-m", "mock_model", "serve", str(script)],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield child.stdout.readline().split()[-1]
    finally:
        child.terminate()
        child.wait(timeout=10)


def run_eval(tmp_path: Path, url: str, seed: int, name: str) -> dict[str, object]:
    suite = tmp_path / "evals" / "cases"
    if not suite.is_dir():
        suite.mkdir(parents=True)
        (suite / "fix-buggy-calc.yaml").write_text(CASE, encoding="utf-8")
        shutil.copytree(ROOT / "shared" / "data" / "workspaces" / "buggy-calc",
                        tmp_path / "evals" / "workspaces" / "buggy-calc")
        shutil.copytree(ROOT / "shared" / "data" / "scripts", tmp_path / "evals" / "scripts")
    report = tmp_path / f"{name}.json"
    env = {**os.environ, "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-test-fresh-777"}
    done = subprocess.run([str(Path(sys.executable).parent / "pi-course"), "eval", "14", "--suite",
                           str(suite), "--model", "openai/mock-1", "--fresh", str(seed),
                           "--report", str(report)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "sk-test-fresh-777" not in done.stdout + done.stderr + report.read_text()
    return dict(json.loads(report.read_text(encoding="utf-8")))


def fixture_of(data: dict[str, object]) -> str:
    results = data["results"]
    assert isinstance(results, list) and len(results) == 1
    return str(results[0]["fixture"])


def test_fresh_runs_through_a_real_endpoint_with_identical_fixtures_per_seed(
    tmp_path: Path, server: str
) -> None:
    first, again = run_eval(tmp_path, server, 7, "a"), run_eval(tmp_path, server, 7, "b")
    other = run_eval(tmp_path, server, 8, "c")
    assert first["mode"] == "openai/mock-1" and first["fresh"] == 7
    assert fixture_of(first) == fixture_of(again) != fixture_of(other)


def test_an_anthropic_endpoint_runs_the_suite_too(tmp_path: Path, server: str) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "evals" / "cases" / "plain-answer.yaml", suite / "plain-answer.yaml")
    (suite / "plain-answer.yaml").write_text(
        (suite / "plain-answer.yaml").read_text().replace('"= 5"', '"PASS"'), encoding="utf-8")
    env = {**os.environ, "ANTHROPIC_BASE_URL": server, "ANTHROPIC_API_KEY": "sk-ant-test-1"}
    done = subprocess.run([str(Path(sys.executable).parent / "pi-course"), "eval", "14",
                           "--suite", str(suite), "--model", "anthropic/claude-test"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 not passed" in done.stdout
