"""The pure judges: predicates over the frozen view, the files and the trajectory.

Each takes the argument written in the case and the `JudgeView`, and returns one `Check`
with a short reason when it fails: "calc.py: not read before its first edit", never the text
it looked at. They read only the view, so the same view always gets the same verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from course.evals.outcomes import Check, text_of, tool_names


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


def file_equals(arg: Mapping[str, str], view: JudgeView) -> Check:
    text = view.files.get(arg["path"])
    ok = text == arg["text"]
    return Check("file_equals", ok, "" if ok else f"{arg['path']}: content differs")


def file_contains(arg: Mapping[str, str], view: JudgeView) -> Check:
    text = view.files.get(arg["path"])
    ok = text is not None and arg["text"] in text
    return Check("file_contains", ok, "" if ok else f"{arg['path']}: expected text missing")


def read_before_edit(arg: str, view: JudgeView) -> Check:
    order = [name for name, args in calls(view) if plain(args.get("path")) == arg]
    edited = [i for i, name in enumerate(order) if name in ("edit", "write")]
    ok = bool(edited) and "read" in order[: edited[0]]
    return Check("read_before_edit", ok, "" if ok else f"{arg}: not read before its first edit")


def tool_called(arg: str, view: JudgeView) -> Check:
    ok = any(name == arg for name, _ in calls(view))
    return Check("tool_called", ok, "" if ok else f"{arg} was never called")


def tool_not_called(arg: str, view: JudgeView) -> Check:
    ok = all(name != arg for name, _ in calls(view))
    return Check("tool_not_called", ok, "" if ok else f"{arg} was called")


def no_tool_errors(arg: bool, view: JudgeView) -> Check:
    errors = sum(1 for m in view.path if m.get("role") == "toolResult" and m.get("isError"))
    ok = (errors == 0) == bool(arg)
    return Check("no_tool_errors", ok, "" if ok else f"{errors} tool error(s)")


def a_result_contains(arg: str, view: JudgeView, error: bool) -> bool:
    return any(m.get("role") == "toolResult" and bool(m.get("isError")) == error
               and arg in text_of(m) for m in view.path)


def tool_error_contains(arg: str, view: JudgeView) -> Check:
    ok = a_result_contains(arg, view, error=True)
    return Check("tool_error_contains", ok, "" if ok else "no tool error with the expected text")


def tool_result_contains(arg: str, view: JudgeView) -> Check:
    """A tool that succeeded returned the text: the agent really read it, it did not guess."""
    ok = a_result_contains(arg, view, error=False)
    return Check("tool_result_contains", ok, "" if ok else "no tool result with the text")


def final_text_contains(arg: str, view: JudgeView) -> Check:
    replies = [m for m in view.path if m.get("role") == "assistant"]
    ok = bool(replies) and arg in text_of(replies[-1]) and not tool_names(replies[-1])
    return Check("final_text_contains", ok, "" if ok else "the final answer lacks the text")


def text_in_path(arg: str, view: JudgeView) -> Check:
    ok = any(arg in text_of(m) for m in view.path)
    return Check("text_in_path", ok, "" if ok else "expected text not in the active path")


def text_not_in_path(arg: str, view: JudgeView) -> Check:
    ok = not any(arg in text_of(m) for m in view.path)
    return Check("text_not_in_path", ok, "" if ok else "unwanted text in the active path")


def user_said(arg: str, view: JudgeView) -> Check:
    ok = any(m.get("role") == "user" and arg in text_of(m) for m in view.path)
    return Check("user_said", ok, "" if ok else "no user message with the expected text")


def roles(arg: str, view: JudgeView) -> Check:
    """The exact sequence of roles in the path, e.g. `user assistant toolResult assistant`."""
    seen = " ".join(str(m.get("role")) for m in view.path)
    ok = seen == " ".join(arg.split())
    return Check("roles", ok, "" if ok else f"roles were: {seen}")


def rpc_response(arg: Mapping[str, str], view: JudgeView) -> Check:
    """A response to the command `arg.command` holds `arg.text` (in its compact JSON)."""
    found = [json.dumps(r, sort_keys=True, separators=(",", ":"), default=dict)
             for r in view.rpc if r.get("command") == arg["command"]]
    ok = any(arg["text"] in text for text in found)
    detail = f"no {arg['command']} response" if not found else \
        f"no {arg['command']} response with the expected text"
    return Check("rpc_response", ok, "" if ok else detail)


PURE: dict[str, Judge] = {
    "file_equals": file_equals, "file_contains": file_contains,
    "read_before_edit": read_before_edit, "tool_called": tool_called,
    "tool_not_called": tool_not_called, "no_tool_errors": no_tool_errors,
    "tool_error_contains": tool_error_contains, "tool_result_contains": tool_result_contains,
    "final_text_contains": final_text_contains,
    "text_in_path": text_in_path, "text_not_in_path": text_not_in_path, "user_said": user_said,
    "roles": roles, "rpc_response": rpc_response,
}
