"""What happens to typed input before the agent sees it, in Pi's order.

An extension's `/command` runs and ends there; `input` handlers may rewrite the text or take
it over; `/skill:` and prompt templates expand; `before_agent_start` handlers may change the
system prompt for this run and add messages after the prompt. Each piece was built in steps
11 and 12; the runtime only calls them in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi.ai import AgentMessage
from pi.coding_agent.extensions.prompt import before_agent_start, run_command, transform_input
from pi.coding_agent.extensions.runner import ExtensionRunner
from pi.coding_agent.resources.loader import Resources


@dataclass(frozen=True)
class PreparedPrompt:
    text: str
    system_prompt: str | None
    extra_messages: tuple[AgentMessage, ...]


async def prepare_prompt(runner: ExtensionRunner, resources: Resources, text: str,
                         system_prompt: str | None) -> PreparedPrompt | None:
    """The prompt to run, or None when an extension command or input handler took it."""
    if await run_command(runner, text):
        return None
    typed = await transform_input(runner, text)
    if typed is None:
        return None
    expanded = resources.expand_input(typed) or typed
    change = await before_agent_start(runner, expanded, system_prompt)
    return PreparedPrompt(expanded, change.system_prompt, change.messages)
