"""What an eval case may ask of this checkpoint: keys, tools, actions and the model to use.

The eval driver (`course/eval_driver.py`) reads a normalised case written by a harness. A key this
step cannot honour is refused by name, never ignored: a session resume run on step 08 must fail
loudly, not "pass" without resuming. Each later step adds its keys here, in its own region.

Case keys (contract 1): `prompt` (str), `script` (`{"turns": [...]}`, MockModel data) or
`model` (`provider/id`, an OpenAI-compatible endpoint: `<PROVIDER>_BASE_URL`, `_API_KEY`),
`tools` (names), `actions` (`{"event": event type, "nth": 1, <kind>: value}`), `max_turns`,
`system_prompt`, `id`.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from mock_model import MockModel, ScriptError, script_from_data
from pi.ai.bounded import read_file, read_json
from pi.agent import AgentTool, ProgressCallback, ToolRegistry, ToolResult
from pi.ai import AbortSignal, MockProvider, Model, OpenAICompletionsProvider, Providers
from pi.ai import StreamOptions

from pi.coding_agent import Workspace, coding_tools


STEP = 6
KNOWN_KEYS = {"id", "prompt", "script", "model", "tools", "actions", "max_turns", "system_prompt"}
ACTIONS = ["abort"]
STEP = 7
# Steps 09-13 add their case keys to KNOWN_KEYS here (what they do: course/eval_driver.py).


class CaseError(ValueError):
    """The case cannot be run by this checkpoint; the message names the field."""


class EchoText(BaseModel):
    text: str
    delay_ms: int = Field(0, ge=0, le=5000)


class EchoTool(AgentTool[EchoText]):
    """The driver's own tool, there at every step, so a round trip needs no workspace tools.

    `delay_ms` makes one call finish after another that started later: the order results
    are recorded in must not depend on which tool finishes first.
    """

    name = "echo"
    description = "Repeat the given text (after delay_ms milliseconds, if given)."
    parameters = EchoText

    async def execute(self, call_id: str, params: EchoText, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        await asyncio.sleep(params.delay_ms / 1000)
        return ToolResult.text(params.text)


def checked_case(case: Any) -> dict[str, Any]:
    """The case, if this step can run it; otherwise CaseError naming the first problem."""
    if not isinstance(case, dict):
        raise CaseError("the case must be a JSON object")
    unknown = sorted(set(case) - KNOWN_KEYS)
    if unknown:
        raise CaseError(f"{unknown[0]}: not something step {STEP} can do")
    if not isinstance(case.get("prompt"), str):
        raise CaseError("prompt: expected a string")
    if ("script" in case) == ("model" in case):
        raise CaseError("expected exactly one of script (MockModel turns) or model (provider/id)")
    if not isinstance(case.get("max_turns", 1), int):
        raise CaseError("max_turns: expected an integer")
    tools, actions = case.get("tools", []), case.get("actions", [])
    if not isinstance(tools, list) or not all(isinstance(name, str) for name in tools):
        raise CaseError("tools: expected a list of tool names")
    if not isinstance(actions, list):
        raise CaseError("actions: expected a list")
    for index, action in enumerate(actions):
        kinds = [kind for kind in ACTIONS if isinstance(action, dict) and kind in action]
        if len(kinds) != 1 or not isinstance(action.get("event"), str):
            raise CaseError(f"actions[{index}]: expected `event` and one of: {', '.join(ACTIONS)}")
    return case


def boundary(case: dict[str, Any]) -> tuple[Model, Providers, StreamOptions]:
    """The MockModel playing the case's turns, or a real OpenAI-compatible model."""
    if "script" in case:
        try:
            mock = MockModel(script_from_data(case["script"]))
        except ScriptError as error:
            raise CaseError(f"script: {error}") from None
        mock_model = Model(id="mock-1", api="mock", provider="mock")
        return mock_model, Providers({"mock": MockProvider(mock)}), StreamOptions()
    provider, _, model_id = str(case["model"]).partition("/")
    env = provider.upper().replace("-", "_")
    default_url = "https://api.openai.com/v1" if provider == "openai" else ""
    model = Model(id=model_id, api="openai-completions", provider=provider,
                  base_url=os.environ.get(f"{env}_BASE_URL", default_url))
    providers = Providers({"openai-completions": OpenAICompletionsProvider()})
    return model, providers, StreamOptions(api_key=os.environ.get(f"{env}_API_KEY"))


def tool_registry(names: list[str], workspace: Path) -> ToolRegistry:
    """The named tools: `echo` at every step, the coding tools on `workspace` from step 07."""
    available: dict[str, AgentTool[Any]] = {"echo": EchoTool()}
    available.update((tool.name, tool) for tool in coding_tools(Workspace(workspace)))
    missing = [name for name in names if name not in available]
    if missing:
        raise CaseError(f"tools: {missing[0]!r} is not a tool at step {STEP} "
                        f"(known: {', '.join(available)})")
    return ToolRegistry(available[name] for name in names)


def read_case(file: Path, workspace: Path) -> dict[str, Any]:
    """The case in `file`, checked against what this step can do; CaseError if it cannot."""
    try:
        data = read_json(read_file(file))
    except (OSError, ValueError) as error:
        raise CaseError(getattr(error, "strerror", None) or f"not valid JSON: {error}") from None
    case = checked_case(data)
    if not workspace.is_dir():
        raise CaseError(f"--workspace {workspace} is not a directory")
    tool_registry(list(case.get("tools", [])), workspace)
    boundary(case)
    return case
