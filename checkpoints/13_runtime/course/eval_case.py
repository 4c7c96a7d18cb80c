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

from typing import ClassVar, TypeVar

from pydantic import ConfigDict, ValidationError

from pi.ai.messages import describe_error
from pi.coding_agent import SessionError, SessionTree, SessionWriter, fixed_clock, read_session
from pi.coding_agent import sequential_ids, start_session

from pi.agent import LoopConfig
from pi.coding_agent import SummaryError, collect_entries_for_branch_summary
from pi.coding_agent import generate_branch_summary

from pi.coding_agent import ScriptedUI

from pi.ai import AnthropicMessagesProvider, Credentials, WithCredentials
from pi.ai.registry import builtin_models, find_model


STEP = 6
KNOWN_KEYS = {"id", "prompt", "script", "model", "tools", "actions", "max_turns", "system_prompt"}
ACTIONS = ["abort"]
STEP = 7
STEP = 8
ACTIONS += ["steer", "follow_up"]
# Steps 09-13 add their case keys to KNOWN_KEYS here (what they do: course/eval_driver.py).
STEP = 9
KNOWN_KEYS |= {"resume"}
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: the session file is the same on every run
STEP = 10
KNOWN_KEYS |= {"branch"}
STEP = 11
NO_USER_FOLDER = ".pi-course-none"  # inside the workspace, never there: the user's files stay out
STEP = 12
KNOWN_KEYS |= {"extensions", "ui"}
STEP = 13
KNOWN_KEYS |= {"retry", "compaction", "rpc"}


class CaseError(ValueError):
    """The case cannot be run by this checkpoint; the message names the field."""


class Setup(BaseModel):
    """The settings under one case key of a later step; an unknown field is refused by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    key: ClassVar[str]


class Resume(Setup):
    """`resume`: go on with `file` (in the session folder) at `leaf`, an entry id or a label."""

    key = "resume"
    file: str
    leaf: str | None = None


SETUPS: list[type[Setup]] = [Resume]


class Branch(Setup):
    """`branch`: open `file`, move to the entry `to`, first summarising the branch left behind."""

    key = "branch"
    file: str
    to: str
    summarize: bool = True


SETUPS.append(Branch)


class UI(Setup):
    """`ui`: what the person answers when an extension asks (ScriptedUI), in order."""

    key = "ui"
    confirm: tuple[bool, ...] = ()


SETUPS.append(UI)


class Retry(Setup):
    """`retry`: the runtime retries transient failures (off unless the case asks)."""

    key = "retry"
    max_retries: int = Field(3, ge=0)
    base_delay_ms: int = Field(2000, ge=0)


class Compaction(Setup):
    """`compaction`: the window the model claims, and the runtime's compaction settings."""

    key = "compaction"
    context_window: int = Field(gt=0)
    reserve_tokens: int = Field(16_384, ge=0)
    keep_recent_tokens: int = Field(20_000, ge=0)


SETUPS += [Retry, Compaction]
S = TypeVar("S", bound=Setup)


def setting(case: dict[str, Any], kind: type[S]) -> S | None:
    """The case's settings under `kind.key`, checked; None when the case has none."""
    if kind.key not in case:
        return None
    try:
        return kind.model_validate(case[kind.key])
    except ValidationError as error:
        raise CaseError(describe_error(error, kind.key)) from None


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
    for kind in SETUPS:
        setting(case, kind)
    commands = case.get("rpc", [])
    if not isinstance(commands, list) or not all(isinstance(c, dict) and isinstance(
            c.get("type"), str) for c in commands):
        raise CaseError("rpc: expected a list of commands, each with a `type`")
    names = case.get("extensions", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise CaseError("extensions: expected a list of extension files")
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
    # The runtime makes its own StreamOptions, so the key is looked up for every request.
    # OpenAI and Anthropic come from the model catalog, with pi-agent's variables
    # (OPENAI_/ANTHROPIC_BASE_URL and _API_KEY); any other provider is OpenAI-compatible.
    keys = Credentials(env_keys={provider: f"{env}_API_KEY"})
    providers = Providers({"openai-completions": WithCredentials(OpenAICompletionsProvider(),
                                                                 keys),
                           "anthropic-messages": WithCredentials(AnthropicMessagesProvider(),
                                                                 keys)})
    if provider in ("openai", "anthropic"):
        model = find_model(str(case["model"]), builtin_models())
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
    for name in case.get("extensions", []):
        extension_file(name, workspace)
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
    """The run's session file: a new one in `folder`, or the stored one the case names.

    A stored file (copied into `folder` by the harness) is appended to, going on from the
    case's leaf; without one, from its last entry, as Pi does when it opens a file.
    """
    ids, clock = sequential_ids(), fixed_clock(START_MS)
    stored = setting(case, Resume)
    where = "--session-dir" if stored is None else "resume.file"
    if (move := setting(case, Branch)) is not None:
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
    """Move to `branch.to`, with a summary of the branch left behind; why that failed, or None.

    The summary is a model call through the run's boundary (turn 1 of a MockModel script),
    and it is recorded as a `branch_summary` entry at the new position, as Pi's navigateTree.
    """
    move = setting(case, Branch)
    if move is None:
        return None
    target = leaf_in(writer.tree, move.to, "branch.to")
    if not move.summarize:
        writer.branch(target)
        return None
    old = writer.tree.path_to(writer.leaf_id) if writer.leaf_id else []
    left = collect_entries_for_branch_summary(old, writer.tree.path_to(target)).entries
    summary = await generate_branch_summary(left, config.model, config.stream,
                                            options=config.options)
    if isinstance(summary, SummaryError):
        return summary.text
    writer.branch_with_summary(target, summary.summary, summary.details)
    return None


def extension_file(name: str, workspace: Path) -> Path:
    """`name` in the workspace, else among the course's example extensions (data/extensions)."""
    here = Path(__file__).resolve().parent
    places = [workspace, *(base / sub / "extensions" for base in here.parents
                           for sub in ("data", "shared/data"))]
    found = next((place / name for place in places if (place / name).is_file()), None)
    if found is None:
        raise CaseError(f"extensions: no {name} in the workspace or data/extensions")
    return found.resolve()


def ui_of(case: dict[str, Any]) -> ScriptedUI:
    """The person an extension asks: the case's answers (`ui.confirm`), then always no."""
    answers = setting(case, UI)
    return ScriptedUI(answers.confirm if answers else ())
