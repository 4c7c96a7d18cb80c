"""Run the tool calls of one reply: independent calls together, an `exclusive` tool alone.

Results go into the transcript in the model's call order; a reply that ended badly runs none."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pi.agent.events import AgentEvent, ToolExecutionEnd, ToolExecutionStart, ToolExecutionUpdate
from pi.agent.tool_calls import error_result, run_tool_call
from pi.agent.tools import ToolRegistry, ToolResult
from pi.ai import AbortSignal, AssistantMessage, ToolCall, ToolResultMessage
from pi.agent.tool_calls import ToolHooks, run_hooked_call

ENDS_RUN = ("error", "aborted", "length")  # such a reply runs no tools, and ends the run
ABORTED = "Operation aborted"  # the result of a call that had not started when the run stopped


def batches(calls: Sequence[ToolCall], registry: ToolRegistry) -> list[list[ToolCall]]:
    """Consecutive calls that may overlap form one batch; an exclusive call is a batch alone."""

    def exclusive(call: ToolCall) -> bool:
        tool = registry.get(call.name)
        return tool is not None and tool.exclusive

    groups: list[list[ToolCall]] = []
    for call in calls:
        if not groups or exclusive(call) or exclusive(groups[-1][0]):
            groups.append([call])
        else:
            groups[-1].append(call)
    return groups


Record = Callable[[ToolResultMessage], None]


@dataclass
class ToolBatch:
    """The tool calls of one reply: run, reported through `emit`, recorded through `record`."""

    registry: ToolRegistry
    emit: Callable[[AgentEvent], None]
    signal: AbortSignal
    clock: Callable[[], int]
    hooks: ToolHooks | None = None

    async def run(self, reply: AssistantMessage, record: Record) -> list[ToolResultMessage]:
        """One result per tool call of `reply`, each ended and recorded in call order."""
        calls = [block for block in reply.content if isinstance(block, ToolCall)]
        if reply.stop_reason in ENDS_RUN:
            return [self.skip(call, reply.stop_reason, record) for call in calls]
        results: list[ToolResultMessage] = []
        for group in batches(calls, self.registry):
            for call in group:
                self.started(call)
            running = [asyncio.ensure_future(self.execute(call)) for call in group]
            for call, task in zip(group, running, strict=True):
                results.append(self.finished(call, await task, record))
        return results

    def started(self, call: ToolCall) -> None:
        self.emit(ToolExecutionStart(tool_call_id=call.id, tool_name=call.name,
                                     args=call.arguments))

    async def execute(self, call: ToolCall) -> ToolResultMessage:
        if self.signal.aborted:  # Pi 1.6: a call not yet started still gets its one result
            return error_result(call, ABORTED, self.clock)

        def progress(partial: ToolResult) -> None:
            self.emit(ToolExecutionUpdate(tool_call_id=call.id, tool_name=call.name,
                                          args=call.arguments, partial_result=partial))

        if self.hooks is not None:
            return await run_hooked_call(self.registry, call, self.signal, progress, self.clock,
                                         self.hooks)
        return await run_tool_call(self.registry, call, self.signal, progress, self.clock)

    def finished(self, call: ToolCall, result: ToolResultMessage,
                 record: Record) -> ToolResultMessage:
        self.emit(ToolExecutionEnd(tool_call_id=call.id, tool_name=call.name, result=result,
                                   is_error=result.is_error))
        record(result)
        return result

    def skip(self, call: ToolCall, reason: str, record: Record) -> ToolResultMessage:
        text = f"Skipped: the reply ended with stopReason {reason!r} before this call could run."
        self.started(call)
        return self.finished(call, error_result(call, text, self.clock), record)
