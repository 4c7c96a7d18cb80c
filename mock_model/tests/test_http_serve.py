"""`python -m mock_model serve` and `serve_in_thread`: real sockets, loopback only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from mock_model import MockModel, text, turn
from mock_model.http import require_loopback, serve_in_thread

from .test_cli import REPO_ROOT, run_cli

SCRIPT = {"turns": [{"text": "served over HTTP"}]}


def test_serve_prints_its_url_first_and_answers_until_killed(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    command = [sys.executable, "-m", "mock_model", "serve", str(script), "--port", "0"]
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT, env=environment
    ) as process:
        try:
            assert process.stdout is not None
            first_line = process.stdout.readline().strip()
            assert first_line.startswith("listening on http://127.0.0.1:")
            url = first_line.removeprefix("listening on ")
            body = {"model": "mock-1", "messages": [{"role": "user", "content": "hi"}]}
            response = httpx.post(f"{url}/v1/chat/completions", json=body)
            assert response.json()["choices"][0]["message"]["content"] == "served over HTTP"
            assert response.headers["date"] == "Thu, 01 Jan 2026 00:00:00 GMT"
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_serve_refuses_a_non_loopback_host(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    result = run_cli("serve", str(script), "--host", "0.0.0.0")
    assert result.returncode == 2
    assert "only binds to loopback" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    require_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::1", "example.com", ""])
def test_other_hosts_are_refused(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        require_loopback(host)


def test_stop_closes_the_port_and_can_be_called_twice() -> None:
    url, stop = serve_in_thread(MockModel([turn(text("x"))]))
    try:
        assert httpx.post(f"{url}/nowhere", content=b"{}").status_code == 404
    finally:
        stop()
    stop()
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{url}/v1/chat/completions", content=b"{}")
