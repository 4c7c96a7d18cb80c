"""`pi-course demo` with no step: the complete agent fixing a bug, shown call by call.

The newest agent of the checkout (`python -m pi`, as `pi-agent` finds it) runs offline
on the MockModel script of the eval case `fix-buggy-calc`, in a scratch copy of that case's
workspace, and streams its events as JSON lines. This module only watches and reports: the
prompt, each tool call with a short preview of what came back, the fix as a diff of the
workspace, the workspace's own tests, then the eval harness's verdict on the same case in one
line. A scripted run fixes the clock and the ids, so the output is the same on every machine
and `shared/tests/test_showcase.py` checks it against a snapshot.
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped, unused-ignore]
from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule
from rich.syntax import Syntax
from rich.text import Text

from pi_course.agent_entry import agent_folder
from pi_course.eval_command import harness_folder
from pi_course.paths import CourseError, Layout

CASE_ID = "fix-buggy-calc"
PREVIEW_LINES = 3
PREVIEW_WIDTH = 72
Event = Mapping[str, Any]


@dataclass(frozen=True)
class DemoCase:
    """What the demo needs from the eval case: the task, its fixture, its script, its test."""

    prompt: str
    workspace: Path
    script: Path
    test_command: str


def load_case(layout: Layout) -> DemoCase:
    """The eval case the demo plays, so the verdict at the end judges the same task."""
    path = layout.root / "evals" / "cases" / f"{CASE_ID}.yaml"
    if not path.is_file():
        raise CourseError(f"the demo plays the eval case {path.relative_to(layout.root)}, "
                          "which is missing")
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    commands = [j["command"] for j in case["judges"] if isinstance(j, dict) and "command" in j]
    workspace = layout.data / "workspaces" / case["workspace"]
    script = layout.data / "scripts" / case["script"]
    for needed in (workspace, script):
        if not needed.exists():
            raise CourseError(f"the demo needs {needed.relative_to(layout.root)}")
    return DemoCase(case["prompt"], workspace, script, commands[0])


def child_env() -> dict[str, str]:
    """This interpreter first on PATH, so the agent's `python` is the one with the course."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def run_agent(folder: Path, case: DemoCase, workspace: Path, scratch: Path) -> list[Event]:
    """The agent's events, one JSON object per line of `--mode json`."""
    command = [sys.executable, "-m", "pi", "-p", "--mode", "json",
               "--script", str(case.script), "--cwd", str(workspace),
               "--session", str(scratch / "session.jsonl"),
               "--agent-dir", str(scratch / "agent"), case.prompt]
    done = subprocess.run(command, cwd=folder, env=child_env(), capture_output=True,
                          text=True, timeout=120, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CourseError(f"the agent in {folder.name} failed: {last}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """One line for a tool call: what a person would say the agent did."""
    if name == "bash":
        return f"bash  $ {args.get('command', '')}"
    if name == "edit":
        edits = args.get("edits", [])
        return f"edit  {args.get('path', '')} ({len(edits)} replacement{'s' * (len(edits) != 1)})"
    if "path" in args and len(args) == 1:
        return f"{name}  {args['path']}"
    return f"{name}  {json.dumps(args, sort_keys=True)}"


def result_text(result: Mapping[str, Any]) -> str:
    blocks = result.get("content", [])
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def preview(text: str, lines: int = PREVIEW_LINES) -> list[str]:
    """The first non-blank lines of a tool's result, shortened, and how many more there were."""
    filled = [line for line in text.splitlines() if line.strip()] or ["(no output)"]
    shown = [line if len(line) <= PREVIEW_WIDTH else line[:PREVIEW_WIDTH - 1] + "…"
             for line in filled[:lines]]
    rest = len(filled) - len(shown)
    return shown + ([f"… {rest} more line{'s' * (rest != 1)}"] if rest > 0 else [])


def show_run(console: Console, events: list[Event]) -> tuple[int, int]:
    """Print what the agent said and did; return (tool calls, tool errors)."""
    calls: dict[str, Event] = {}
    count = errors = 0
    for event in events:
        kind = event["type"]
        if kind == "message_end" and event["message"]["role"] == "assistant":
            for block in event["message"]["content"]:
                if block["type"] == "text" and block["text"].strip():
                    console.print(Text.assemble(("agent  ", "bold cyan"), block["text"]))
        elif kind == "tool_execution_start":
            calls[event["toolCallId"]] = event
        elif kind == "tool_execution_end":
            count, started = count + 1, calls[event["toolCallId"]]
            failed = bool(event.get("isError"))
            errors += failed
            mark = ("✗ ", "bold red") if failed else ("● ", "bold green")
            line = describe_call(event["toolName"], started.get("args", {}))
            console.print(Text.assemble(mark, (line, "bold")))
            for shown in preview(result_text(event["result"])):
                console.print(Text(f"    {shown}", style="dim"))
    return count, errors


def workspace_texts(folder: Path) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts}


def workspace_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """A unified diff of every file the run changed, added or removed."""
    chunks: list[str] = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel, ""), after.get(rel, "")
        if old != new:
            chunks.extend(difflib.unified_diff(old.splitlines(keepends=True),
                                               new.splitlines(keepends=True),
                                               f"a/{rel}", f"b/{rel}"))
    return "".join(chunks)


def run_tests(workspace: Path, command: str) -> tuple[int, str]:
    """The workspace's own test command, with this interpreter as `python`."""
    argv = shlex.split(command)
    if argv and argv[0] == "python":
        argv[0] = sys.executable
    done = subprocess.run(argv, cwd=workspace, env=child_env(), capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, (done.stdout + done.stderr).strip()


def eval_verdict(layout: Layout, target: Path, scratch: Path) -> tuple[bool, str]:
    """The harness's verdict on the same case, run its own way: a fresh copy, every judge."""
    report = scratch / "report.json"
    command = [sys.executable, "-m", "course", "evals", "run",
               "--suite", str(layout.root / "evals" / "cases"), "--case", CASE_ID,
               "--target", str(target), "--report", str(report)]
    done = subprocess.run(command, cwd=harness_folder(layout), env=child_env(),
                          capture_output=True, text=True, timeout=300, check=False)
    if not report.is_file():
        last = (done.stderr.strip().splitlines() or ["no report written"])[-1]
        return False, f"eval {CASE_ID}: the harness did not report ({last})"
    result = json.loads(report.read_text(encoding="utf-8"))["results"][0]
    stats = result["stats"]
    checks = f"{stats.get('checks_passed', 0)}/{stats.get('checks_total', 0)} checks"
    tools = f"{stats.get('tool_calls', 0)} tool calls, {stats.get('tool_errors', 0)} failed"
    why = "" if result["outcome"] == "passed" else f" at {result['phase']}/{result['code']}"
    line = (f"eval {CASE_ID} on step {result['checkpoint']}: "
            f"{result['outcome']}{why} · {checks} · {tools}")
    return result["outcome"] == "passed", line


def sections(console: Console) -> Iterator[None]:
    """Section rules in order; each `next()` draws the next one."""
    for title in ("the agent at work", "the fix", "the tests", "the verdict"):
        console.print(Rule(title, style="dim"))
        yield


def showcase(layout: Layout, console: Console) -> int:
    """Run the demo and print it; 0 when no tool failed, the tests pass and the case passed."""
    folder, case = agent_folder(layout), load_case(layout)
    console.print(Panel(case.prompt, title="prompt", title_align="left", expand=False))
    rule = sections(console)
    with tempfile.TemporaryDirectory(prefix="pi-course-demo-") as temporary:
        scratch = Path(temporary)
        workspace = scratch / case.workspace.name
        shutil.copytree(case.workspace, workspace)
        before = workspace_texts(workspace)
        next(rule)
        _, errors = show_run(console, run_agent(folder, case, workspace, scratch))
        next(rule)
        fix = workspace_diff(before, workspace_texts(workspace))
        console.print(Syntax(fix, "diff", theme="ansi_dark") if fix else "(no file changed)")
        next(rule)
        code, output = run_tests(workspace, case.test_command)
        mark = ("● ", "bold green") if code == 0 else ("✗ ", "bold red")
        console.print(Text.assemble(mark, (f"$ {case.test_command}", "bold")))
        console.print(Text("\n".join(f"    {line}" for line in preview(output)), style="dim"))
        next(rule)
        passed, verdict = eval_verdict(layout, folder, scratch)
        console.print(Text(verdict, style="bold green" if passed else "bold red"),
                      soft_wrap=True)
    return 0 if code == 0 and passed and errors == 0 else 1
