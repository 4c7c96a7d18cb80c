"""The judges that reach outside the view: a command in the workspace, and a grading model.

`command` runs a shell command inside the run's workspace, with this interpreter's folder
first on PATH (so `python test_calc.py` means the Python running the harness), and passes
when it exits 0. Its output is never kept: it could hold anything.

`model_graded` asks a model to grade the run against a rubric, through the same model
boundary the agent uses: a MockModel playing the case's `turns` offline, or the real model
of `--model`. The reply must start with PASS, or FAIL followed by a reason.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi.ai import Context, TextContent, UserMessage, redact
from course.eval_case import boundary
from course.evals.predicates import Judge, JudgeView
from course.evals.outcomes import Check, env_secrets, text_of, tool_names

GRADER_PROMPT = (
    "You grade the work of a coding agent. Read the task's rubric, the conversation and the "
    "files. Answer with one line: PASS, or FAIL: followed by the reason."
)


def command_env() -> dict[str, str]:
    """The environment of judge commands: our interpreter's folder first on PATH."""
    folder = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONDONTWRITEBYTECODE": "1"}


def command_judge(workspace: Path, timeout: float = 60.0) -> Judge:
    def run(command: str, view: JudgeView) -> Check:
        try:
            done = subprocess.run(["bash", "-c", command], cwd=workspace, env=command_env(),
                                  capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return Check("command", False, f"`{command}` timed out after {timeout:g} s")
        ok = done.returncode == 0
        return Check("command", ok, "" if ok else f"`{command}` exited {done.returncode}")

    return run


def grading_request(arg: Mapping[str, Any], view: JudgeView) -> str:
    """What the grading model reads: the rubric, the conversation, the declared files."""
    lines = [f"Rubric: {arg['rubric']}", "", "Conversation:"]
    for message in view.path:
        tools = ", ".join(tool_names(message))
        lines.append(f"[{message.get('role')}] {text_of(message)}" + (f" (calls {tools})"
                                                                         if tools else ""))
    for name, text in view.files.items():
        lines += ["", f"File {name}:", "(missing)" if text is None else text]
    return "\n".join(lines)


def model_judge(model: str | None) -> Judge:
    """Grade with `model` (provider/id), or, when None, with the MockModel of the judge's turns."""

    def grade(arg: Mapping[str, Any], view: JudgeView) -> Check:
        case = {"model": model} if model else {"script": {"turns": list(arg.get("turns", []))}}
        chosen, providers, options = boundary(case)
        context = Context(system_prompt=GRADER_PROMPT, messages=(
            UserMessage(content=grading_request(arg, view), timestamp=0),))
        reply = asyncio.run(providers.complete(chosen, context, options))
        answer = "".join(b.text for b in reply.content if isinstance(b, TextContent)).strip()
        if reply.stop_reason in ("error", "aborted"):
            return Check("model_graded", False, f"the grading model failed: {reply.error_message}")
        if answer.startswith("PASS"):
            return Check("model_graded", True)
        reason = answer.removeprefix("FAIL").lstrip(": ") if answer.startswith("FAIL") else ""
        return Check("model_graded", False, redact(reason[:120], env_secrets()) or
                     "no PASS/FAIL verdict")

    return grade
