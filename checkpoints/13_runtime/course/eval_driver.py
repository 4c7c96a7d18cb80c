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

import tempfile
from dataclasses import replace

from pi.coding_agent import SessionWriter, build_context, convert_to_llm, read_session
from pi.coding_agent.session.entries import MessageEntry
from course.eval_case import open_session

from course.eval_case import branch_to

import json

from pi.ai import Providers
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent import DEFAULT_COMPACTION_SETTINGS, CompactionSettings, fixed_clock
from pi.coding_agent import ScriptedUI, sequential_ids
from course.eval_case import NO_USER_FOLDER, START_MS, extension_file, keys
from pi.modes.rpc import RpcServer, RpcUI


CONTRACT = 1


class Observer:
    """Counts events, keeps every finished message, and fires the case's actions on cue."""

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.counts: Counter[str] = Counter()
        self.ended: list[AgentMessage] = []
        self.actions, self.aborted = actions, False
        self.do: dict[str, Callable[[Any], object]] = {}
        self.rpc: list[dict[str, Any]] = []  # the responses of an `rpc` case
        self.session_file: Path | None = None  # where the run ended, when an rpc fork moved it

    def __call__(self, event: AgentEvent, *state: object) -> None:
        self.counts[event.type] += 1
        if isinstance(event, MessageEnd):
            self.ended.append(event.message)
        for action in self.actions:
            if action["event"] == event.type and action.get("nth", 1) == self.counts[event.type]:
                kind = next(kind for kind in self.do if kind in action)
                self.aborted = self.aborted or kind == "abort"
                self.do[kind](action[kind])


async def run(case: dict[str, Any], config: LoopConfig, observer: Observer,
              writer: SessionWriter, settings: RuntimeConfig) -> tuple[
    list[AgentMessage], LoopResult
]:
    """Run the prompt; return the transcript the agent holds and the run's result."""
    failure = await branch_to(case, writer, config)
    if failure is not None:
        return [], LoopResult((), f"branch summary failed: {failure}")
    writer.close()  # the runtime opens the same file and goes on from the same leaf
    if not writer.tree.entries:  # a new session: the runtime starts the file in its own way
        writer.path.unlink()
    runtime = Runtime(replace(settings, session_file=writer.path, leaf_id=writer.leaf_id,
                              sessions_dir=writer.path.parent))
    problems = runtime.assembly.extensions.diagnostics
    if problems:
        raise CaseError(f"extensions: {problems[0]}")
    runtime.agent.config = replace(runtime.agent.config, max_turns=config.max_turns)
    runtime.subscribe(observer)  # type: ignore[arg-type]  # it also counts the runtime's events
    if "rpc" in case:  # Pi's RPC protocol in process; a fork may move to another file
        messages, result, observer.session_file = await over_rpc(case, runtime, observer.rpc)
        return messages, result
    observer.do = {"abort": lambda _: runtime.abort(), "steer": runtime.steer,
                   "follow_up": runtime.follow_up}
    await runtime.prompt(case["prompt"])
    await runtime.close()
    return list(runtime.messages), LoopResult((), runtime.agent.state.last_error)


def read_back(session: Path) -> dict[str, list[dict[str, Any]]]:
    """The session file as a resume sees it (`session`: the messages of its leaf) and every
    message root → leaf, compacted or not (`history`: a call left without its result in a
    compacted part is still a broken history)."""
    tree = read_session(session).tree
    leaf = tree.leaf_on_load
    path = tree.path_to(leaf) if leaf is not None else []
    return {"session": [m.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for m in build_context(tree, leaf).messages],
            "history": [e.message.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for e in path if isinstance(e, MessageEntry)]}


async def no_wait(ms: int) -> None:
    """A retry's backoff, skipped: the run's clock is fake, so waiting would prove nothing."""


def runtime_config(case: dict[str, Any], config: LoopConfig, providers: Providers,
                   workspace: Path) -> RuntimeConfig:
    """The runtime for the case: its boundary, tools and settings, retry only if it asks; the
    workspace is a trusted project and the user's own folder is left out."""
    retry, compaction = keys(case).retry, keys(case).compaction
    model, settings = config.model, DEFAULT_COMPACTION_SETTINGS
    if compaction is not None:
        model = model.model_copy(update={"context_window": compaction.context_window})
        settings = CompactionSettings(reserve_tokens=compaction.reserve_tokens,
                                      keep_recent_tokens=compaction.keep_recent_tokens)
    tools = tuple(tool for name in config.tools.names() if (tool := config.tools.get(name)))
    paths = tuple(extension_file(name, workspace) for name in case.get("extensions", []))
    return RuntimeConfig(
        cwd=workspace, model=model, providers=providers, clock=fixed_clock(START_MS),
        ids=sequential_ids(), tools=tools, system_prompt=case.get("system_prompt"),
        agent_dir=workspace / NO_USER_FOLDER, trusted=True, extension_paths=paths,
        ui=ScriptedUI(keys(case).ui.confirm), sleep=no_wait, compaction=settings,
        auto_retry=retry is not None,
        max_retries=retry.max_retries if retry else 0,
        retry_base_ms=retry.base_delay_ms if retry else 0)


async def idle(server: RpcServer) -> None:
    """Wait until no command is being handled and no run is going."""
    while server.tasks or server.streaming:
        await asyncio.gather(*server.tasks, *([server.run] if server.run else []))


async def over_rpc(case: dict[str, Any], runtime: Runtime, responses: list[dict[str, Any]],
                   ) -> tuple[list[AgentMessage], LoopResult, Path]:
    """An `rpc` case: the prompt, then each command, through one in-process RpcServer, one at
    a time once it is idle; the responses are kept, and a fork's new runtime is what ends."""

    def write(line: dict[str, Any]) -> None:
        if line.get("type") == "response":
            responses.append(line)

    server = RpcServer(runtime, RpcUI(write))
    for command in [{"type": "prompt", "message": case["prompt"]}, *case["rpc"]]:
        server.accept(json.dumps(command))
        await idle(server)
    await server.finish()
    final = server.runtime
    return list(final.messages), LoopResult((), final.agent.state.last_error), final.writer.path


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


async def drive(case: dict[str, Any], workspace: Path, session_dir: Path | None = None,
                ) -> dict[str, Any]:
    """Run one case with its session file in `session_dir` (a temporary folder if None);
    only a case naming something this run cannot use (a missing leaf) raises CaseError."""
    with tempfile.TemporaryDirectory(prefix="pi-eval-sessions-") as folder:
        return await observe(case, workspace, session_dir or Path(folder))


async def observe(case: dict[str, Any], workspace: Path, folder: Path) -> dict[str, Any]:
    """Run one case (checked by `read_case`) on `workspace`; the observation, never a raise."""
    model, providers, options = boundary(case)
    config = LoopConfig(model=model, stream=providers.stream, options=options,
                        tools=tool_registry(list(case.get("tools", [])), workspace),
                        system_prompt=case.get("system_prompt"),
                        max_turns=case.get("max_turns", 50))
    config = replace(config, convert_to_llm=convert_to_llm)  # type: ignore[arg-type]
    writer = open_session(case, folder, workspace)
    observer = Observer(list(case.get("actions", [])))
    try:
        settings = runtime_config(case, config, providers, workspace)
        messages, result = await run(case, config, observer, writer, settings)
        terminal, error = ending(result, messages, observer.aborted)
    except CaseError:  # an extension the runtime could not load: the case, not the agent
        raise
    except Exception as crash:  # the agent's code failed: that is what we observed
        messages, terminal, error = observer.ended, "crashed", f"{type(crash).__name__}: {crash}"
    writer.close()
    return {"contract": CONTRACT, "step": STEP, "terminal": terminal, "error": error,
            "transcript": [dump_message(m) for m in messages],
            **read_back(observer.session_file or writer.path),
            **({"rpc": observer.rpc} if "rpc" in case else {}),
            "events": dict(sorted(observer.counts.items()))}


def eval_driver(
    case: Annotated[Path, typer.Option(help="the normalised case (JSON)")],
    workspace: Annotated[Path, typer.Option(help="the folder the agent works in")],
    session_dir: Annotated[Path | None, typer.Option(help="where sessions go (step 09 on)")] = None,
) -> None:
    """Run one eval case on this checkpoint and print its observation as one JSON object."""
    try:
        data = read_case(case, workspace)
        observation = asyncio.run(drive(data, workspace, session_dir))
    except CaseError as error:
        typer.echo(f"error: {case}: {error}", err=True)
        raise typer.Exit(2) from None
    print(json_text(observation, sort_keys=True))
