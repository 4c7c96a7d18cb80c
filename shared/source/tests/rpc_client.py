"""Step 13 test helper: run `pi-agent` as a real subprocess and talk to it through pipes.

The command is started exactly as a person would start it (`python -m pi.modes.main …`, from
this checkpoint's folder so `pi` is this checkpoint's package), with the interpreter's folder
first on PATH so a scripted `python …` bash call runs this interpreter. A thread reads stdout
line by line, so a test can wait for one event (say `tool_execution_start`) and answer it
while the run goes on, as a real client would.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).resolve().parents[1]
TIMEOUT = 20.0


def agent_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SOURCE), env.get("PYTHONPATH")]))
    return {**env, **extra}


def run_agent(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `pi-agent ARGS` to its end; stdout and stderr captured as text."""
    return subprocess.run([sys.executable, "-m", "pi.modes.main", *args], cwd=SOURCE,
                          env=env or agent_env(), capture_output=True, text=True,
                          timeout=TIMEOUT, check=False, encoding="utf-8")


class RpcClient:
    """`pi-agent --mode rpc ARGS` with a line reader; `seen` keeps every line received."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pi.modes.main", "--mode", "rpc", *args], cwd=SOURCE,
            env=agent_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8")
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, command: dict[str, Any] | str) -> None:
        assert self.process.stdin is not None
        line = command if isinstance(command, str) else json.dumps(command)
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, matches: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first line not yet read that `matches`; every line read is kept in `seen`."""
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            if line is None:
                raise AssertionError(f"pi-agent ended early: {self.stderr()}")
            self.seen.append(line)
            if matches(line):
                return line

    def event(self, kind: str) -> dict[str, Any]:
        return self.wait_for(lambda line: line.get("type") == kind)

    def request(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send a command with an id and wait for its response."""
        self.send(command)
        return self.wait_for(lambda line: line.get("type") == "response"
                             and line.get("id") == command["id"])

    def close(self) -> list[dict[str, Any]]:
        """End stdin, read to the end and wait for exit code 0; every line seen."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        while (line := self.lines.get(timeout=TIMEOUT)) is not None:
            self.seen.append(line)
        assert self.process.wait(timeout=TIMEOUT) == 0, self.stderr()
        return self.seen

    def stderr(self) -> str:
        assert self.process.stderr is not None
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read()
