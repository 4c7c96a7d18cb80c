"""Outcomes: one verdict per run, in four kinds that point at who must act.

`passed`; `task_failed` (a judge said no); `protocol_failed` (a rule every run must keep was
broken); `infra_failed` (no honest observation, with its phase and code). Problems after the
verdict are secondary codes and never change it.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from pi.ai import redact

Status = Literal["passed", "task_failed", "protocol_failed", "infra_failed"]
STATUSES: tuple[Status, ...] = get_args(Status)
Phase = Literal["prepare", "execute", "collect", "protocol", "judge", "dispose"]
EXERCISE = r"exercise (\d{2}-[a-z0-9-]+)"  # a practice stub's NotImplementedError names it
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$")


@dataclass(frozen=True)
class Check:
    """One protocol check or judge: its name, whether it held, and a short reason if not."""

    name: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Outcome:
    case: str
    step: int
    status: Status
    phase: Phase | None = None
    code: str | None = None
    exercise: str | None = None
    checks: tuple[Check, ...] = ()
    secondary: tuple[str, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None  # why an infra failure happened: exit code, last stderr lines

    def with_secondary(self, code: str) -> Outcome:
        return replace(self, secondary=(*self.secondary, code))


def infra(case: str, step: int, phase: Phase, code: str, error: str | None = None,
          reason: str | None = None) -> Outcome:
    """An infra failure with its reason; a practice stub's `exercise NN-name` is named."""
    found = re.match(rf"\w+: {EXERCISE}", error or "")
    why = redact((reason or error or "")[:400], env_secrets()) or None
    return Outcome(case, step, "infra_failed", phase, code, found[1] if found else None,
                   reason=why)


def stub_in(path: Sequence[Mapping[str, Any]]) -> str | None:
    """The exercise of a practice stub that a tool ran into (its error result names it)."""
    for message in path:
        found = message.get("isError") and re.match(rf"{EXERCISE}:", text_of(message))
        if found:
            return found[1]
    return None


def verdict(case: str, step: int, protocol: Sequence[Check], judged: Sequence[Check],
            stats: Mapping[str, Any]) -> Outcome:
    """Protocol problems come before any judgement; then the judges decide."""
    checks = (*protocol, *judged)
    broken = [check for check in protocol if not check.passed]
    if broken:
        return Outcome(case, step, "protocol_failed", "protocol", broken[0].name, None, checks,
                       stats=stats)
    failed = [check for check in judged if not check.passed]
    if failed:
        return Outcome(case, step, "task_failed", "judge", failed[0].name, None, checks,
                       stats=stats)
    return Outcome(case, step, "passed", checks=checks, stats=stats)


def text_of(message: Mapping[str, Any]) -> str:
    """The text of a message: string content, text blocks, or a summary's text."""
    if isinstance(message.get("summary"), str):
        return str(message["summary"])
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content if b.get("type") == "text")


def tool_calls(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(id, tool name) of each tool call of a message, in the order the model wrote them."""
    content = message.get("content", "")
    if isinstance(content, str):
        return []
    return [(str(b.get("id")), str(b.get("name"))) for b in content if b.get("type") == "toolCall"]


def path_stats(path: Sequence[Mapping[str, Any]], files_checked: int) -> dict[str, Any]:
    """Counts and categories only (tokens and cost are zero for the MockModel): never a
    message text, a file's content or a path."""
    roles = Counter(str(message.get("role")) for message in path)
    usages = [m.get("usage") or {} for m in path if m.get("role") == "assistant"]
    return {
        "messages": dict(sorted(roles.items())),
        "tool_calls": sum(len(tool_calls(m)) for m in path if m.get("role") == "assistant"),
        "tool_errors": sum(1 for m in path if m.get("role") == "toolResult" and m.get("isError")),
        "files_checked": files_checked,
        "tokens": sum(int(u.get("totalTokens", 0)) for u in usages),
        "cost": round(sum(float((u.get("cost") or {}).get("total", 0)) for u in usages), 6),
    }


def env_secrets() -> list[str]:
    """Values of environment variables named like secrets (…_API_KEY, …_TOKEN, …)."""
    return [v for k, v in os.environ.items() if SECRET_NAME.search(k.upper()) and len(v) >= 8]
