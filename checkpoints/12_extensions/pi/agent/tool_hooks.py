"""Hooks around a tool call, the door through which extensions reach the loop.

An application may want a say before a call runs (ask a person before `rm -rf`, refuse to
touch `.env`) or after (hide a secret that appeared in the output). The loop offers exactly
that and no more: a before-hook sees a valid call and may block it or change its arguments;
an after-hook sees the paired result and may replace it. The loop does not know who decides;
the coding agent plugs its extensions in here (step 12), a test plugs in plain functions.

A hook is code somebody else wrote, so it may raise, hang or return nonsense. Every such
failure counts as a refusal: the call does not run (or its result is withheld), the model is
told why, and the failure is recorded in `failures`. Nothing runs by accident.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from pi.agent.tools import AnyTool
from pi.ai import ToolCall, ToolResultMessage

BLOCKED = "Tool execution was blocked"
HookName = Literal["before_tool_call", "after_tool_call"]


@dataclass(frozen=True)
class BlockDecision:
    """A before-hook's refusal: the tool does not run; the model reads `reason`."""

    reason: str | None = None


@dataclass(frozen=True)
class ArgumentChange:
    """A before-hook's new arguments, checked against the tool's parameters like the model's."""

    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolCallContext:
    """What a before-hook gets besides the call: the tool and the validated arguments."""

    tool: AnyTool
    params: BaseModel


@dataclass(frozen=True)
class HookFailure:
    """A hook that raised or returned nonsense; its call did not run, or its result was withheld."""

    tool_call_id: str
    tool_name: str
    hook: HookName
    error: str


Decision = BlockDecision | ArgumentChange | None
BeforeToolCall = Callable[[ToolCall, ToolCallContext], Awaitable[Decision]]
AfterToolCall = Callable[[ToolCall, ToolResultMessage], Awaitable[ToolResultMessage | None]]


@dataclass(frozen=True)
class ToolHooks:
    """Optional checks around every tool call of a run; each failure is appended to `failures`.

    `before_tool_call(call, context)` returns None (run it), a BlockDecision or an
    ArgumentChange. `after_tool_call(call, result)` returns None (keep it) or the result the
    model gets instead, paired with the same call.
    """

    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    failures: list[HookFailure] = field(default_factory=list)
