"""One user prompt with extensions in the loop, from typed text to the run's end.

Before the model hears anything, the extensions get three chances, in Pi's order: a slash
command registered by an extension runs instead of a prompt; `input` handlers may rewrite the
text or take it over entirely; `before_agent_start` handlers may change the system prompt and
add messages. Then the loop runs with the extensions' tool hooks and an EventRelay. None of
these early handlers can block anything, so a failed one is recorded and skipped.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import replace

from pi.agent.events import AgentEvent
from pi.agent.loop import LoopConfig, LoopResult, run_loop
from pi.ai import AbortSignal, AgentMessage, UserMessage
from pi.coding_agent.extensions.events import (
    AgentStartChange,
    BeforeAgentStartEvent,
    InputChange,
    InputEvent,
    InputHandled,
)
from pi.coding_agent.extensions.hooks import EventRelay, tool_hooks
from pi.coding_agent.extensions.runner import ExtensionRunner, HandlerFailed


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


async def transform_input(runner: ExtensionRunner, text: str) -> str | None:
    """The text to go on with (rewrites chain), or None when an extension handled it."""
    for ext, handler in runner.handlers("input"):
        try:
            answer = await runner.call(ext, "input handler", handler, InputEvent(text))
        except HandlerFailed:
            continue
        if isinstance(answer, InputHandled):
            return None
        if isinstance(answer, InputChange):
            text = answer.text
    return text


async def before_agent_start(runner: ExtensionRunner, prompt: str,
                             system_prompt: str | None) -> AgentStartChange:
    """The system prompt after every handler's change, and all the messages they add."""
    added: list[AgentMessage] = []
    for ext, handler in runner.handlers("before_agent_start"):
        event = BeforeAgentStartEvent(prompt, system_prompt)
        try:
            answer = await runner.call(ext, "before_agent_start handler", handler, event)
        except HandlerFailed:
            continue
        if isinstance(answer, AgentStartChange):
            system_prompt = answer.system_prompt or system_prompt
            added += answer.messages
    return AgentStartChange(system_prompt, tuple(added))


async def run_prompt(
    runner: ExtensionRunner,
    text: str,
    history: Sequence[AgentMessage],
    config: LoopConfig,
    emit: Callable[[AgentEvent], None],
    signal: AbortSignal,
) -> LoopResult | None:
    """Run one prompt through the extensions and the loop; None when no run was needed."""
    if await run_command(runner, text):
        return None
    typed = await transform_input(runner, text)
    if typed is None:
        return None
    change = await before_agent_start(runner, typed, config.system_prompt)
    config = replace(config, system_prompt=change.system_prompt, tool_hooks=tool_hooks(runner))
    prompt = UserMessage(content=typed, timestamp=config.options.clock())
    relay = EventRelay(runner, emit)
    result = await run_loop([prompt, *change.messages], history, config, relay, signal)
    await relay.flush()
    return result
