"""What an eval case may ask of this checkpoint: its keys, tools, actions and model.

A key this step cannot honour is refused by name, never ignored: a session resume run on
step 08 must fail loudly, not "pass" without resuming. Each later step adds its keys to `Case`.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mock_model import MockModel, ScriptError, script_from_data
from pi.ai.bounded import read_file, read_json
from pi.ai.messages import describe_error
from pi.agent import AgentTool, ProgressCallback, ToolRegistry, ToolResult
from pi.ai import AbortSignal, MockProvider, Model, OpenAICompletionsProvider, Providers
from pi.ai import StreamOptions

from pi.coding_agent import Workspace, coding_tools

from pi.coding_agent import SessionError, SessionTree, SessionWriter, fixed_clock, read_session
from pi.coding_agent import sequential_ids, start_session

from pi.agent import LoopConfig
from pi.coding_agent import SummaryError, collect_entries_for_branch_summary
from pi.coding_agent import generate_branch_summary


STEP = 10  # this checkpoint's step, named when a case asks for more than it has
ACTIONS = ["abort"]
ACTIONS += ["steer", "follow_up"]
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: the session file is the same on every run


class CaseError(ValueError):
    """The case cannot be run by this checkpoint; the message names the field."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Resume(Strict):
    """`resume`: go on with `file` (in the session folder) at `leaf`, an entry id or a label."""

    file: str
    leaf: str | None = None


class Branch(Strict):
    """`branch`: open `file`, move to the entry `to`, first summarising the branch left behind."""

    file: str
    to: str
    summarize: bool = True


class Action(BaseModel):
    """Do `kind` (one of ACTIONS) when the `nth` event of type `event` arrives."""

    event: str
    nth: int = 1

    @model_validator(mode="before")
    @classmethod
    def one_kind(cls, data: Any) -> Any:
        if not isinstance(data, dict) or sum(kind in data for kind in ACTIONS) != 1:
            raise ValueError(f"expected `event` and one of: {', '.join(ACTIONS)}")
        return data


class Case(Strict):
    """The keys a case may use at this step; each later step adds its own."""

    id: str = ""
    prompt: str
    script: dict[str, Any] | None = None
    model: str | None = None
    tools: list[str] = []
    actions: list[Action] = []
    max_turns: int = 50
    system_prompt: str | None = None
    resume: Resume | None = None
    branch: Branch | None = None


def keys(case: dict[str, Any]) -> Case:
    """The case's keys, typed; CaseError naming the first problem."""
    try:
        return Case.model_validate(case)
    except ValidationError as error:
        raise CaseError(describe_error(error, "case")) from None


class EchoText(BaseModel):
    text: str
    delay_ms: int = Field(0, ge=0, le=5000)


class EchoTool(AgentTool[EchoText]):
    """The driver's own tool at every step; `delay_ms` lets a call finish after one that
    started later (results must still be recorded in call order)."""

    name = "echo"
    description = "Repeat the given text (after delay_ms milliseconds, if given)."
    parameters = EchoText

    async def execute(self, call_id: str, params: EchoText, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        await asyncio.sleep(params.delay_ms / 1000)
        return ToolResult.text(params.text)


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
        case = read_json(read_file(file))
    except (OSError, ValueError) as error:
        raise CaseError(getattr(error, "strerror", None) or f"not valid JSON: {error}") from None
    if not isinstance(case, dict):
        raise CaseError("the case must be a JSON object")
    unknown = sorted(set(case) - set(Case.model_fields))
    if unknown:
        raise CaseError(f"{unknown[0]}: not something step {STEP} can do")
    if ("script" in case) == ("model" in case):
        raise CaseError("expected exactly one of script (MockModel turns) or model (provider/id)")
    keys(case)
    if not workspace.is_dir():
        raise CaseError(f"--workspace {workspace} is not a directory")
    tool_registry(list(case.get("tools", [])), workspace)
    boundary(case)
    return case


def leaf_in(tree: SessionTree, wanted: str, field: str) -> str:
    """The entry with id `wanted`, or the one labelled so; CaseError naming `field` if none."""
    if wanted in tree.by_id:
        return wanted
    labelled = [entry_id for entry_id, label in tree.labels.items() if label == wanted]
    if not labelled:
        raise CaseError(f"{field}: no entry with the id or label {wanted!r}")
    return labelled[0]


def open_session(case: dict[str, Any], folder: Path, workspace: Path) -> SessionWriter:
    """The run's session file: a new one in `folder`, or the stored one the case names,
    going on from the case's leaf or else its last entry, as Pi does when it opens a file."""
    ids, clock = sequential_ids(), fixed_clock(START_MS)
    stored = keys(case).resume
    where = "--session-dir" if stored is None else "resume.file"
    if (move := keys(case).branch) is not None:
        if stored is not None:
            raise CaseError("branch: a case resumes or branches, not both")
        stored, where = Resume(file=move.file), "branch.file"
    try:
        if stored is None:
            return start_session(folder, str(workspace), ids(), ids=ids, clock=clock)
        writer = SessionWriter.resume(read_session(folder / stored.file), ids=ids, clock=clock)
    except SessionError as error:
        raise CaseError(f"{where}: {error}") from None
    if stored.leaf is not None:
        writer.branch(leaf_in(writer.tree, stored.leaf, "resume.leaf"))
    if move is not None:
        leaf_in(writer.tree, move.to, "branch.to")
    return writer


async def branch_to(case: dict[str, Any], writer: SessionWriter, config: LoopConfig) -> (
    str | None
):
    """Move to `branch.to`, recording a model's summary of the branch left behind as Pi's
    navigateTree does; why that failed, or None."""
    move = keys(case).branch
    if move is None:
        return None
    target = leaf_in(writer.tree, move.to, "branch.to")
    if not move.summarize:
        writer.branch(target)
        return None
    left = collect_entries_for_branch_summary(writer.leaf_path(),
                                              writer.tree.path_to(target)).entries
    summary = await generate_branch_summary(left, config.model, config.stream,
                                            options=config.options)
    if isinstance(summary, SummaryError):
        return summary.text
    writer.branch_with_summary(target, summary.summary, summary.details)
    return None
