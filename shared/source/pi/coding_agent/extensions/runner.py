"""Call the extensions' handlers, and plug them into the agent loop and each prompt.

Every handler is awaited with a timeout; a failure is one recorded line (HandlerFailed), and a
failed tool handler blocks the call."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, NoReturn, cast

from pi.agent.events import AgentEvent
from pi.agent.loop import LoopConfig, LoopResult, run_loop
from pi.agent.tool_calls import ArgumentChange, BlockDecision, Decision, ToolCallContext, ToolHooks
from pi.ai import AbortSignal, AgentMessage, ToolCall, ToolResultMessage, UserMessage
from pi.coding_agent.extensions.api import (LOOP_EVENTS, AgentStartChange, BeforeAgentStartEvent,
                                            EventName, ExtensionAPI, Handler, InputChange,
                                            InputEvent, InputHandled, ToolCallEvent,
                                            ToolResultEvent)

DEFAULT_TIMEOUT = 60.0  # seconds; a confirmation waiting for a person counts too


class HandlerFailed(Exception):
    """A handler raised, timed out or gave an answer its event does not allow."""


def read_only(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
    """A deep copy a handler can read but not change, nested values included: changes must be
    returned, not made in place."""
    # [exercise 12-read-only]
    return MappingProxyType(copy.deepcopy(dict(arguments)))
    # [end]


class ExtensionRunner:
    """The handlers of all loaded extensions, and the diagnostics of those that failed."""

    def __init__(self, extensions: Sequence[ExtensionAPI], timeout: float | None = DEFAULT_TIMEOUT):
        self.extensions, self.timeout = list(extensions), timeout
        self.diagnostics: list[str] = []

    def handlers(self, event: EventName) -> list[tuple[ExtensionAPI, Handler]]:
        return [(ext, h) for ext in self.extensions for name, h in ext.handlers if name == event]

    def has(self, event: EventName) -> bool:
        return bool(self.handlers(event))

    async def call(self, ext: ExtensionAPI, what: str, handler: Handler, payload: Any) -> Any:
        """The handler's answer, awaited within `self.timeout` if awaitable (a plain function
        may return a coroutine); else `self.failed`: `timed out after N s` or `Type: error`."""
        # [exercise 12-guarded-call]
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
        # [end]

    def failed(self, ext: ExtensionAPI, what: str, problem: str) -> NoReturn:
        line = f"{ext.path.name}: {what} failed: {problem}"
        self.diagnostics.append(line)
        raise HandlerFailed(line)

    async def tool_call(self, call: ToolCall, context: ToolCallContext | None = None) -> Decision:
        """The first block wins; argument changes chain; a failure reaches the caller. The
        loop's `context` (the tool, the validated arguments) is not handed on."""
        # [exercise 12-tool-hooks]
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
        # [end]

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


def tool_hooks(runner: ExtensionRunner) -> ToolHooks:
    """The loop's hooks for the extensions' tool handlers (none, when nobody listens)."""
    return ToolHooks(before_tool_call=runner.tool_call if runner.has("tool_call") else None,
                     after_tool_call=runner.tool_result if runner.has("tool_result") else None)


class EventRelay:
    """An `emit` for the loop: events go on at once; handlers are scheduled one event after
another, so they see the loop's order without holding it up. `flush` waits for the rest."""

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
        # Handlers only watch these events: a failed one is recorded and skipped.
        for ext, handler in self.runner.handlers(cast(EventName, event.type)):
            with contextlib.suppress(HandlerFailed):
                await self.runner.call(ext, f"{event.type} handler", handler, event)

    async def flush(self) -> None:
        if self._last is not None:
            await self._last


async def run_command(runner: ExtensionRunner, text: str) -> bool:
    """Run `/name args` if an extension registered /name; True when the text was one."""
    name, _, args = text.removeprefix("/").partition(" ")
    found = [(ext, c) for ext in runner.extensions for c in ext.commands if c.name == name]
    if not text.startswith("/") or not found:
        return False
    ext, command = found[0]
    with contextlib.suppress(HandlerFailed):  # recorded in the diagnostics
        await runner.call(ext, f"/{name} command", command.handler, args.strip())
    return True


@dataclass(frozen=True)
class PreparedPrompt:
    text: str
    system_prompt: str | None
    extra_messages: tuple[AgentMessage, ...]


async def prepare_prompt(runner: ExtensionRunner, text: str, system_prompt: str | None,
                         expand: Callable[[str], str | None] = lambda text: None,
                         ) -> PreparedPrompt | None:
    """Pi's order: an extension's /command runs instead; `input` handlers may rewrite the text
    or take it over (None: nothing to run); `expand` applies /skill: and templates; then
    `before_agent_start` handlers may change the system prompt and add messages."""
    if await run_command(runner, text):
        return None
    for ext, handler in runner.handlers("input"):
        with contextlib.suppress(HandlerFailed):
            answer = await runner.call(ext, "input handler", handler, InputEvent(text))
            if isinstance(answer, InputHandled):
                return None
            if isinstance(answer, InputChange):
                text = answer.text
    text = expand(text) or text
    added: list[AgentMessage] = []
    for ext, handler in runner.handlers("before_agent_start"):
        event = BeforeAgentStartEvent(text, system_prompt)
        with contextlib.suppress(HandlerFailed):
            answer = await runner.call(ext, "before_agent_start handler", handler, event)
            if isinstance(answer, AgentStartChange):
                system_prompt = answer.system_prompt or system_prompt
                added += answer.messages
    return PreparedPrompt(text, system_prompt, tuple(added))


async def run_prompt(runner: ExtensionRunner, text: str, history: Sequence[AgentMessage],
                     config: LoopConfig, emit: Callable[[AgentEvent], None],
                     signal: AbortSignal) -> LoopResult | None:
    """Run one prompt through the extensions and the loop; None when no run was needed."""
    prepared = await prepare_prompt(runner, text, config.system_prompt)
    if prepared is None:
        return None
    config = replace(config, system_prompt=prepared.system_prompt, tool_hooks=tool_hooks(runner))
    prompt = UserMessage(content=prepared.text, timestamp=config.options.clock())
    relay = EventRelay(runner, emit)
    result = await run_loop([prompt, *prepared.extra_messages], history, config, relay, signal)
    await relay.flush()
    return result
