"""Every tool call ends in exactly one result, paired by the call's id.

Unknown tools, bad arguments and raising tools all become error results the model can read."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from pi.agent.tools import ProgressCallback, ToolRegistry, ToolResult
from pi.ai import AbortSignal, TextContent, ToolCall, ToolResultMessage
from pi.ai.messages import json_text


def result_message(call: ToolCall, result: ToolResult, is_error: bool,
                   clock: Callable[[], int]) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=result.content,
        details=result.details,
        is_error=is_error,
        timestamp=clock(),
    )


def error_result(call: ToolCall, text: str, clock: Callable[[], int]) -> ToolResultMessage:
    """The paired result of a call that did not succeed, with the reason for the model."""
    return result_message(call, ToolResult((TextContent(text=text),)), True, clock)


def validation_text(call: ToolCall, error: ValidationError) -> str:
    """What was wrong, so the model can correct itself: `Invalid arguments for tool NAME:`,
    a line `  - path.to.field: problem` per problem (`(root)`: no field), a blank line,
    `Received arguments:` and the arguments as `json_text` with indent 2 and sorted keys."""
    problems = [f"  - {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
                for e in error.errors()]
    received = json_text(call.arguments, indent=2, sort_keys=True)  # numbers as Pi writes them
    return "\n".join(
        [f"Invalid arguments for tool {call.name}:", *problems, "", "Received arguments:", received]
    )


async def run_tool_call(registry: ToolRegistry, call: ToolCall, signal: AbortSignal,
                        on_update: ProgressCallback, clock: Callable[[], int]) -> ToolResultMessage:
    """Look up, validate, execute: one toolResult, whatever happens. Errors: `Tool NAME not
    found`, the `validation_text`, or the exception's text (its type's name if empty)."""
    tool = registry.get(call.name)
    if tool is None:
        return error_result(call, f"Tool {call.name} not found", clock)
    try:
        params = tool.parameters.model_validate(call.arguments)
    except ValidationError as invalid:
        return error_result(call, validation_text(call, invalid), clock)
    try:
        result = await tool.execute(call.id, params, signal, on_update)
    except Exception as failure:
        return error_result(call, str(failure) or type(failure).__name__, clock)
    return result_message(call, result, False, clock)
