"""Call the extensions' handlers, in load order, each within a time limit.

Handlers are somebody else's code running inside the agent. A handler that raises or hangs
must not take the agent down with it, and it must not let anything through by accident. So
every handler is called the same way (`call`): awaited with a timeout, its failure turned into
one diagnostic line naming the extension, and raised as HandlerFailed. What happens next
depends on the event. A handler that only watches (agent_start, turn_end, ...) is skipped and
the run goes on; a failed `tool_call` or `tool_result` handler lets HandlerFailed reach the
tool hooks, which then block the call (fail closed).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, NoReturn

from pi.agent.tool_hooks import ArgumentChange, BlockDecision, Decision
from pi.ai import ToolCall, ToolResultMessage
from pi.coding_agent.extensions.api import Extension, Handler
from pi.coding_agent.extensions.events import EventName, ToolCallEvent, ToolResultEvent

DEFAULT_TIMEOUT = 60.0  # seconds; a confirmation waiting for a person counts too


class HandlerFailed(Exception):
    """A handler raised, timed out or gave an answer its event does not allow."""


def read_only(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """A copy a handler can read but not change: changes must be returned, not made in place."""
    return MappingProxyType(copy.deepcopy(dict(arguments)))


class ExtensionRunner:
    """The handlers of all loaded extensions, and the diagnostics of those that failed."""

    def __init__(self, extensions: Sequence[Extension], timeout: float | None = DEFAULT_TIMEOUT):
        self.extensions, self.timeout = list(extensions), timeout
        self.diagnostics: list[str] = []

    def handlers(self, event: EventName) -> list[tuple[Extension, Handler]]:
        return [(ext, h) for ext in self.extensions for name, h in ext.handlers if name == event]

    def has(self, event: EventName) -> bool:
        return bool(self.handlers(event))

    async def call(self, ext: Extension, what: str, handler: Handler, payload: Any) -> Any:
        """The handler's answer; a raise or a timeout is recorded and raised as HandlerFailed."""
        try:
            answer = handler(payload)
            if inspect.isawaitable(answer):
                answer = await asyncio.wait_for(answer, self.timeout)
            return answer
        except TimeoutError:
            problem = f"timed out after {self.timeout} s"
        except Exception as error:
            problem = f"{type(error).__name__}: {error}"
        self.failed(ext, what, problem)

    def failed(self, ext: Extension, what: str, problem: str) -> NoReturn:
        line = f"{ext.path.name}: {what} failed: {problem}"
        self.diagnostics.append(line)
        raise HandlerFailed(line)

    async def notify(self, event: EventName, payload: Any) -> None:
        """An event handlers only watch: a failed handler is recorded and skipped."""
        for ext, handler in self.handlers(event):
            try:
                await self.call(ext, f"{event} handler", handler, payload)
            except HandlerFailed:
                continue

    async def tool_call(self, call: ToolCall) -> Decision:
        """The first block wins; argument changes chain; a failure reaches the caller."""
        arguments, changed = dict(call.arguments), False
        for ext, handler in self.handlers("tool_call"):
            event = ToolCallEvent(call.id, call.name, read_only(arguments))
            answer = await self.call(ext, "tool_call handler", handler, event)
            if isinstance(answer, BlockDecision):
                return answer
            if isinstance(answer, ArgumentChange):
                arguments, changed = dict(answer.arguments), True
            elif answer is not None:
                self.failed(ext, "tool_call handler", f"returned {answer!r}, not a decision")
        return ArgumentChange(arguments) if changed else None

    async def tool_result(self, call: ToolCall, result: ToolResultMessage) -> (
        ToolResultMessage | None
    ):
        """Each handler sees the latest result; the last replacement is what the model gets."""
        latest, replaced = result, False
        for ext, handler in self.handlers("tool_result"):
            event = ToolResultEvent(call.id, call.name, read_only(call.arguments), latest)
            answer = await self.call(ext, "tool_result handler", handler, event)
            if isinstance(answer, ToolResultMessage):
                latest, replaced = answer, True
            elif answer is not None:
                self.failed(ext, "tool_result handler", f"returned {answer!r}, not a result")
        return latest if replaced else None
