"""The eval driver: one case in, one observation out, so a harness can measure this checkpoint.

A harness runs `python -m course eval-driver --case CASE.json --workspace DIR` inside the
checkpoint's folder (no process can import two checkpoints' `pi`), and the driver prints ONE
JSON object, contract 1: `{"contract": 1, "step", "terminal": "completed" | "error" |
"aborted" | "max_turns" | "crashed", "error", "transcript", "session", "events"}`. It never
judges; a crash in the agent is observed as `crashed` (exit 0); only a case it cannot read
gives exit code 2 and one line. Later steps add to the contract, never change it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from pi.ai.messages import json_text
from pi.agent import AgentEvent, LoopConfig, LoopResult, MessageEnd
from pi.ai import AgentMessage, AssistantMessage, dump_message
from course.eval_case import STEP, CaseError, boundary, read_case, tool_registry

from pi.agent import run_loop
from pi.ai import AbortController, UserMessage


CONTRACT = 1


class Observer:
    """Counts events, keeps every finished message, and fires the case's actions on cue."""

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.counts: Counter[str] = Counter()
        self.ended: list[AgentMessage] = []
        self.actions, self.aborted = actions, False
        self.do: dict[str, Callable[[Any], object]] = {}

    def __call__(self, event: AgentEvent, *state: object) -> None:
        self.counts[event.type] += 1
        if isinstance(event, MessageEnd):
            self.ended.append(event.message)
        for action in self.actions:
            if action["event"] == event.type and action.get("nth", 1) == self.counts[event.type]:
                kind = next(kind for kind in self.do if kind in action)
                self.aborted = self.aborted or kind == "abort"
                self.do[kind](action[kind])


async def run(case: dict[str, Any], config: LoopConfig, observer: Observer) -> tuple[
    list[AgentMessage], LoopResult
]:
    """Run the prompt; return the transcript the agent holds and the run's result."""
    controller = AbortController()
    observer.do = {"abort": lambda _: controller.abort("aborted by the eval case")}
    prompt = UserMessage(content=case["prompt"], timestamp=0)
    result = await run_loop([prompt], [], config, observer, controller.signal)
    return list(result.messages), result


def ending(result: LoopResult, messages: list[AgentMessage], aborted: bool) -> tuple[
    str, str | None
]:
    """The terminal state of a run that returned, and its error text (an abort wins over the
    aborted reply's error text, which the runtime also reports as the run's error)."""
    if result.error and result.error.startswith("max_turns"):
        return "max_turns", result.error
    last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
    if aborted or (last is not None and last.stop_reason == "aborted"):
        return "aborted", last.error_message if last else None
    if result.error:
        return "error", result.error
    if last is None:
        return "error", "the run ended without a reply"
    if last.stop_reason in ("error", "length"):
        return "error", last.error_message or f"stopReason {last.stop_reason}"
    return "completed", None


async def drive(case: dict[str, Any], workspace: Path) -> dict[str, Any]:
    """Run one case (checked by `read_case`) on `workspace`; the observation, never a raise."""
    model, providers, options = boundary(case)
    config = LoopConfig(model=model, stream=providers.stream, options=options,
                        tools=tool_registry(list(case.get("tools", [])), workspace),
                        system_prompt=case.get("system_prompt"),
                        max_turns=case.get("max_turns", 50))
    observer = Observer(list(case.get("actions", [])))
    try:
        messages, result = await run(case, config, observer)
        terminal, error = ending(result, messages, observer.aborted)
    except Exception as crash:  # the agent's code failed: that is what we observed
        messages, terminal, error = observer.ended, "crashed", f"{type(crash).__name__}: {crash}"
    return {"contract": CONTRACT, "step": STEP, "terminal": terminal, "error": error,
            "transcript": [dump_message(m) for m in messages], "session": None,
            "events": dict(sorted(observer.counts.items()))}


def eval_driver(
    case: Annotated[Path, typer.Option(help="the normalised case (JSON)")],
    workspace: Annotated[Path, typer.Option(help="the folder the agent works in")],
    session_dir: Annotated[Path | None, typer.Option(help="where sessions go (step 09 on)")] = None,
) -> None:
    """Run one eval case on this checkpoint and print its observation as one JSON object."""
    try:
        data = read_case(case, workspace)
        observation = asyncio.run(drive(data, workspace))
    except CaseError as error:
        typer.echo(f"error: {case}: {error}", err=True)
        raise typer.Exit(2) from None
    print(json_text(observation, sort_keys=True))
