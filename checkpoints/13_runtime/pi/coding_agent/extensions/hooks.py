"""Where the extensions meet the agent loop.

The loop (pi.agent) knows nothing of extensions. It offers two doors, and this module plugs
the extensions into both. Its ToolHooks ask the `tool_call` and `tool_result` handlers about
every call; a HandlerFailed passing through them is exactly the "hook that raised" the loop
answers by blocking the call. Its `emit` callback is wrapped by an EventRelay, which passes
every event on unchanged and hands the lifecycle events to the extensions' handlers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from pi.agent.events import AgentEvent
from pi.agent.tool_hooks import Decision, ToolCallContext, ToolHooks
from pi.ai import ToolCall, ToolResultMessage
from pi.coding_agent.extensions.events import LOOP_EVENTS, EventName
from pi.coding_agent.extensions.runner import ExtensionRunner


def tool_hooks(runner: ExtensionRunner) -> ToolHooks:
    """The loop's hooks for the extensions' tool handlers (none, when nobody listens)."""

    async def before(call: ToolCall, context: ToolCallContext) -> Decision:
        return await runner.tool_call(call)

    async def after(call: ToolCall, result: ToolResultMessage) -> ToolResultMessage | None:
        return await runner.tool_result(call, result)

    return ToolHooks(before_tool_call=before if runner.has("tool_call") else None,
                     after_tool_call=after if runner.has("tool_result") else None)


class EventRelay:
    """An `emit` for the loop: events go on at once; lifecycle handlers run after, in order.

    The loop's `emit` is a plain function, and handlers may be async (to ask the person, say).
    Each event's handlers are scheduled to run after the previous event's, so they see events
    in the order the loop sent them without holding the loop up. `flush` waits for the rest.
    """

    def __init__(self, runner: ExtensionRunner,
                 downstream: Callable[[AgentEvent], None] | None = None) -> None:
        self.runner, self.downstream = runner, downstream
        self._last: asyncio.Future[None] | None = None

    def __call__(self, event: AgentEvent) -> None:
        if self.downstream is not None:
            self.downstream(event)
        if event.type in LOOP_EVENTS and self.runner.has(cast(EventName, event.type)):
            self._last = asyncio.ensure_future(self._deliver(self._last, event))

    async def _deliver(self, previous: asyncio.Future[None] | None, event: AgentEvent) -> None:
        if previous is not None:
            await previous
        await self.runner.notify(cast(EventName, event.type), event)

    async def flush(self) -> None:
        if self._last is not None:
            await self._last
