"""Every tool call ends in exactly one result, paired by the call's id.

Unknown tools, bad arguments and raising tools all become error results the model can read."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from pi.agent.tools import ProgressCallback, ToolRegistry, ToolResult
from pi.ai import AbortSignal, TextContent, ToolCall, ToolResultMessage
from pi.ai.messages import json_text
# [from 12]
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from pi.agent.tools import AnyTool
# [end]


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
    # [exercise 05-validation-text]
    problems = [f"  - {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
                for e in error.errors()]
    received = json_text(call.arguments, indent=2, sort_keys=True)  # numbers as Pi writes them
    return "\n".join(
        [f"Invalid arguments for tool {call.name}:", *problems, "", "Received arguments:", received]
    )
    # [end]


async def run_tool_call(registry: ToolRegistry, call: ToolCall, signal: AbortSignal,
                        on_update: ProgressCallback, clock: Callable[[], int]) -> ToolResultMessage:
    """Look up, validate, execute: one toolResult, whatever happens. Errors: `Tool NAME not
    found`, the `validation_text`, or the exception's text (its type's name if empty)."""
    # [exercise 05-one-result]
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
    # [end]
# [from 12]


# Hooks around a call, extensions' door into the loop. A hook that raises or returns nonsense
# blocks the call (or withholds its result), and the model is told why.
BLOCKED = "Tool execution was blocked"


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
    tool_call_id: str
    tool_name: str
    hook: str  # "before_tool_call" or "after_tool_call"
    error: str


Decision = BlockDecision | ArgumentChange | None
BeforeToolCall = Callable[[ToolCall, ToolCallContext], Awaitable[Decision]]
AfterToolCall = Callable[[ToolCall, ToolResultMessage], Awaitable[ToolResultMessage | None]]


@dataclass(frozen=True)
class ToolHooks:
    """Optional checks around every tool call of a run; each failure is appended to `failures`.

`before_tool_call` returns None, a BlockDecision or an ArgumentChange; `after_tool_call`
returns None (keep the result) or the replacement."""

    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    failures: list[HookFailure] = field(default_factory=list)


async def run_hooked_call(registry: ToolRegistry, call: ToolCall, signal: AbortSignal,
                          on_update: ProgressCallback, clock: Callable[[], int],
                          hooks: ToolHooks) -> ToolResultMessage:
    """Ask the before-hook about a valid call, run what it allows, let the after-hook see it."""
    tool = registry.get(call.name)
    try:
        params = tool.parameters.model_validate(call.arguments) if tool else None
    except ValidationError:
        params = None
    if tool is None or params is None:  # no hook is asked about a call that cannot run
        return await run_tool_call(registry, call, signal, on_update, clock)
    prepared = await ask_before(hooks, call, ToolCallContext(tool, params), clock)
    if isinstance(prepared, ToolResultMessage):
        return prepared
    result = await run_tool_call(registry, prepared, signal, on_update, clock)
    return await ask_after(hooks, prepared, result, clock)


async def ask_before(
    hooks: ToolHooks, call: ToolCall, context: ToolCallContext, clock: Callable[[], int]
) -> ToolCall | ToolResultMessage:
    """The call to run (maybe with new arguments), or the error result that replaces it."""
    if hooks.before_tool_call is None:
        return call
    try:
        decision = await hooks.before_tool_call(call, context)
    except Exception as error:
        return hook_failed(hooks, call, "before_tool_call", error, clock)
    if isinstance(decision, BlockDecision):
        return error_result(call, decision.reason or BLOCKED, clock)
    if isinstance(decision, ArgumentChange):
        changed = call.model_copy(update={"arguments": dict(decision.arguments)})
        try:
            context.tool.parameters.model_validate(changed.arguments)
        except ValidationError as invalid:
            return error_result(changed, validation_text(changed, invalid), clock)
        return changed
    if decision is not None:
        return hook_failed(hooks, call, "before_tool_call", f"returned {decision!r}", clock)
    return call


async def ask_after(
    hooks: ToolHooks, call: ToolCall, result: ToolResultMessage, clock: Callable[[], int]
) -> ToolResultMessage:
    """The result the model gets: the tool's, the hook's replacement, or a withheld notice."""
    if hooks.after_tool_call is None:
        return result
    try:
        replaced = await hooks.after_tool_call(call, result)
    except Exception as error:
        return hook_failed(hooks, call, "after_tool_call", error, clock)
    if replaced is None:
        return result
    if not isinstance(replaced, ToolResultMessage) or replaced.tool_call_id != call.id:
        return hook_failed(hooks, call, "after_tool_call", f"returned {replaced!r}"[:200], clock)
    return replaced


def hook_failed(hooks: ToolHooks, call: ToolCall, hook: str, error: Exception | str,
                clock: Callable[[], int]) -> ToolResultMessage:
    """Fail closed: record the failure, and answer the call with an error that names it."""
    text = error if isinstance(error, str) else str(error) or type(error).__name__
    hooks.failures.append(HookFailure(call.id, call.name, hook, text))
    verb = "blocked" if hook == "before_tool_call" else "result withheld"
    return error_result(call, f"Tool call {verb}: {hook} hook failed: {text}", clock)
# [end]
