"""Judges: did the agent do the task? Decided on a frozen view of the path and the files.

Each returns a `Check` with a short reason, never the text it read. `command` runs in the
workspace; `model_graded` asks a model for PASS or FAIL through the agent's model boundary.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pi.ai import Context, TextContent, UserMessage, redact
from course.eval_case import boundary
from course.evals.outcomes import Check, env_secrets, text_of, tool_calls


@dataclass(frozen=True)
class JudgeView:
    """What a judge sees: the active path and the declared files, both frozen."""

    path: tuple[Mapping[str, Any], ...]
    files: Mapping[str, str | None]
    rpc: tuple[Mapping[str, Any], ...] = ()  # an rpc case's responses


Judge = Callable[[Any, JudgeView], Check]


def calls(view: JudgeView) -> list[tuple[str, Mapping[str, Any]]]:
    """(tool name, arguments) of every tool call in the path, in order."""
    return [(str(block["name"]), block.get("arguments", {}))
            for message in view.path if message.get("role") == "assistant"
            and not isinstance(message.get("content"), str)
            for block in message["content"] if block.get("type") == "toolCall"]


def plain(path: object) -> str:
    return str(path).removeprefix("@").removeprefix("./")


def results(view: JudgeView, error: bool) -> list[str]:
    """The texts of the tool results that failed (`error`) or succeeded."""
    return [text_of(m) for m in view.path
            if m.get("role") == "toolResult" and bool(m.get("isError")) == error]


def check(name: str, ok: bool, why: str) -> Check:
    """A judge's Check: the reason is kept only when it failed."""
    return Check(name, ok, "" if ok else why)


def file_equals(arg: Mapping[str, str], view: JudgeView) -> Check:
    ok = view.files.get(arg["path"]) == arg["text"]
    return check("file_equals", ok, f"{arg['path']}: content differs")


def file_contains(arg: Mapping[str, str], view: JudgeView) -> Check:
    text = view.files.get(arg["path"])
    ok = text is not None and arg["text"] in text
    return check("file_contains", ok, f"{arg['path']}: expected text missing")


def read_before_edit(arg: str, view: JudgeView) -> Check:
    order = [name for name, args in calls(view) if plain(args.get("path")) == arg]
    edited = [i for i, name in enumerate(order) if name in ("edit", "write")]
    ok = bool(edited) and "read" in order[: edited[0]]
    return check("read_before_edit", ok, f"{arg}: not read before its first edit")


def tool_called(arg: str, view: JudgeView) -> Check:
    ok = any(name == arg for name, _ in calls(view))
    return check("tool_called", ok, f"{arg} was never called")


def no_tool_errors(arg: bool, view: JudgeView) -> Check:
    errors = len(results(view, error=True))
    return check("no_tool_errors", (errors == 0) == bool(arg), f"{errors} tool error(s)")


def tool_error_contains(arg: str, view: JudgeView) -> Check:
    ok = any(arg in text for text in results(view, error=True))
    return check("tool_error_contains", ok, "no tool error with the expected text")


def tool_result_contains(arg: str, view: JudgeView) -> Check:
    """A tool that succeeded returned the text: the agent really read it, it did not guess."""
    ok = any(arg in text for text in results(view, error=False))
    return check("tool_result_contains", ok, "no tool result with the text")


def final_text_contains(arg: str, view: JudgeView) -> Check:
    replies = [m for m in view.path if m.get("role") == "assistant"]
    ok = bool(replies) and arg in text_of(replies[-1]) and not tool_calls(replies[-1])
    return check("final_text_contains", ok, "the final answer lacks the text")


def text_in_path(arg: str, view: JudgeView) -> Check:
    ok = any(arg in text_of(m) for m in view.path)
    return check("text_in_path", ok, "expected text not in the active path")


def text_not_in_path(arg: str, view: JudgeView) -> Check:
    ok = not any(arg in text_of(m) for m in view.path)
    return check("text_not_in_path", ok, "unwanted text in the active path")


def user_said(arg: str, view: JudgeView) -> Check:
    ok = any(m.get("role") == "user" and arg in text_of(m) for m in view.path)
    return check("user_said", ok, "no user message with the expected text")


def roles(arg: str, view: JudgeView) -> Check:
    """The exact sequence of roles in the path, e.g. `user assistant toolResult assistant`;
    a system message (the prompt a session declares, from step 13) is not conversation."""
    seen = " ".join(str(m.get("role")) for m in view.path if m.get("role") != "system")
    return check("roles", seen == " ".join(arg.split()), f"roles were: {seen}")


def rpc_response(arg: Mapping[str, str], view: JudgeView) -> Check:
    """A response to the command `arg.command` holds `arg.text` (in its compact JSON)."""
    found = [json.dumps(r, sort_keys=True, separators=(",", ":"), default=dict)
             for r in view.rpc if r.get("command") == arg["command"]]
    ok = any(arg["text"] in text for text in found)
    what = "response" if not found else "response with the expected text"
    return check("rpc_response", ok, f"no {arg['command']} {what}")


PURE: dict[str, Judge] = {judge.__name__: judge for judge in (
    file_equals, file_contains, read_before_edit, tool_called, no_tool_errors,
    tool_error_contains, tool_result_contains, final_text_contains, text_in_path,
    text_not_in_path, user_said, roles, rpc_response)}


def freeze(value: Any) -> Any:
    """A deep, read-only copy: dicts become mappingproxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(item) for item in value)
    return value


def judge_view(path: Sequence[Mapping[str, Any]], files: Mapping[str, str | None],
               rpc: Sequence[Mapping[str, Any]] = ()) -> JudgeView:
    return JudgeView(freeze(list(path)), freeze(dict(files)), freeze(list(rpc)))


JUDGE_KINDS = (*PURE, "command", "model_graded")
MAPPING_ARGS = {"file_equals": ("path", "text"), "file_contains": ("path", "text"),
                "model_graded": ("rubric",), "rpc_response": ("command", "text")}


def arg_problem(kind: str, arg: Any) -> str | None:
    """What is wrong with a judge's argument, checked when the case is loaded."""
    keys = MAPPING_ARGS.get(kind)
    if keys is not None:
        ok = isinstance(arg, Mapping) and all(isinstance(arg.get(k), str) for k in keys)
        return None if ok else f"{kind}: expected a mapping with {' and '.join(keys)}"
    expected = bool if kind == "no_tool_errors" else str
    return None if isinstance(arg, expected) else f"{kind}: expected a {expected.__name__}"


def run_judges(judges: Sequence[Mapping[str, Any]], view: JudgeView,
               extra: Mapping[str, Judge]) -> tuple[Check, ...]:
    """Every judge of the case, in order; `extra` supplies `command` and `model_graded`."""
    chosen = {**PURE, **extra}
    return tuple(chosen[kind](arg, view) for judge in judges for kind, arg in judge.items())

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
        tools = ", ".join(name for _, name in tool_calls(message))
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
