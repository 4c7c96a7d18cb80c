"""`pi-course eval --model PROVIDER/ID` against the MockModel's HTTP server.

The real-model path is the one a workshop uses with a paid endpoint; here the endpoint is
`python -m mock_model serve`, reached through OPENAI_BASE_URL / ANTHROPIC_BASE_URL and their
API keys exactly as `pi-agent` reads them. The key never reaches the output or the report.
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


def run_eval(tmp_path: Path, url: str, name: str) -> dict[str, object]:
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
                           str(suite), "--model", "openai/mock-1", "--report",
                           str(report)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "sk-test-fresh-777" not in done.stdout + done.stderr + report.read_text()
    return dict(json.loads(report.read_text(encoding="utf-8")))


def test_an_openai_compatible_endpoint_runs_the_suite_and_its_key_stays_secret(
    tmp_path: Path, server: str
) -> None:
    data = run_eval(tmp_path, server, "a")
    assert data["mode"] == "openai/mock-1" and len(data["results"]) == 1  # type: ignore[arg-type]


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
