"""Run a checkpoint's eval driver as a subprocess and read back its one observation.

The harness never imports the code it measures: `python -m course eval-driver` runs in the
checkpoint's folder, so its own `pi` answers. A crash, a hang or other output is an infra
failure with its own code, never a verdict on the agent.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from pi.ai.bounded import read_json
from pi.ai.messages import describe_error
from course.evals.judges import command_env
from course.evals.workspace import Prepared

DRIVER = ("-m", "course", "eval-driver")


class DriverFailure(Exception):
    """The driver gave no usable observation; `code` is the fixed infra code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code, self.detail = code, detail


def with_role(message: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(message.get("role"), str):
        raise ValueError("expected a message with a string role")
    return message


Message = Annotated[dict[str, Any], AfterValidator(with_role)]


class Observation(BaseModel):
    """Contract 1: what the driver saw; `session` and `history` from step 09, `rpc` from 13."""

    model_config = ConfigDict(frozen=True)
    contract: Literal[1] = 1
    step: int
    terminal: Literal["completed", "error", "aborted", "max_turns", "crashed"]
    error: str | None = None
    transcript: tuple[Message, ...]
    session: tuple[Message, ...] | None = None
    events: dict[str, int] = {}
    rpc: tuple[dict[str, Any], ...] = ()
    history: tuple[Message, ...] | None = None  # root → leaf, compacted parts too

    @property
    def active_path(self) -> tuple[Mapping[str, Any], ...]:
        """What the run ended with: the session's active path once there is a session."""
        return self.session if self.session is not None else self.transcript


def run_driver(checkpoint: Path, prepared: Prepared, timeout: float,
               command: Sequence[str] = (sys.executable, *DRIVER)) -> str:
    """The driver's stdout; DriverFailure if it timed out or exited with an error. It runs in a
    judge command's environment, made reproducible."""
    arguments = [*command, "--case", str(prepared.case_file), "--workspace",
                 str(prepared.workspace), "--session-dir", str(prepared.sessions)]
    env = {**command_env(), "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
    try:
        done = subprocess.run(arguments, cwd=checkpoint, env=env, capture_output=True,
                              text=True, encoding="utf-8", errors="replace", timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise DriverFailure("driver_timeout", f"no observation after {timeout:g} s") from None
    if done.returncode == 2:
        raise DriverFailure("case_refused", last_lines(done.stderr, 1))
    if done.returncode != 0:
        raise DriverFailure("driver_crashed", f"exit {done.returncode}: {last_lines(done.stderr)}")
    return done.stdout


def last_lines(text: str, count: int = 3) -> str:
    """The last lines of a child's stderr, joined: where a crash says what went wrong."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:])[:300] if lines else "(no output)"


def parse_observation(stdout: str) -> Observation:
    """Contract 1 on the last line, checked; DriverFailure('bad_observation') otherwise."""
    lines = stdout.strip().splitlines()
    try:
        data = read_json(lines[-1]) if lines else None
        if not isinstance(data, dict) or "contract" not in data:
            raise ValueError("no contract-1 JSON object on the last line")
        return Observation.model_validate(data)
    except ValidationError as error:
        raise DriverFailure("bad_observation", describe_error(error, "observation")) from None
    except ValueError as error:
        raise DriverFailure("bad_observation", str(error)) from None
