"""Everything a runtime is built from, injected, with offline defaults; thinking levels; and
the parts put together in Pi's order: tools, then the resources that describe them, then the
loop's configuration with the extensions' hooks, and the session they write to."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from pi.agent import LoopConfig, ToolRegistry
from pi.agent.tools import AnyTool
from pi.ai import ImageContent, Model, Providers, StreamOptions
from pi.coding_agent.compaction.thresholds import DEFAULT_COMPACTION_SETTINGS, CompactionSettings
from pi.coding_agent.compaction.utils import SummaryRetry
from pi.coding_agent.extensions.api import ExtensionUI, NoUI
from pi.coding_agent.extensions.loader import LoadedExtensions, discover, load_extensions
from pi.coding_agent.extensions.runner import ExtensionRunner, tool_hooks
from pi.coding_agent.messages import convert_to_llm
from pi.coding_agent.resources.loader import (ResourceLoader, Resources, default_agent_dir,
                                              trust_everything, trust_nothing)
from pi.coding_agent.resources.system_prompt import tool_prompts_for
from pi.coding_agent.runtime.errors import is_transient, retry_delays
from pi.coding_agent.session.entries import (CURRENT_VERSION, Clock, IdSource, SessionError,
                                             SessionHeader, ThinkingLevel, iso_timestamp)
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import sessions_root, start_session
from pi.coding_agent.session.writer import Opener, SessionWriter, open_text
from pi.coding_agent.tools.sets import coding_tools
from pi.coding_agent.tools.workspace import Workspace


@dataclass(frozen=True)
class RuntimeConfig:
    cwd: Path
    model: Model
    providers: Providers
    clock: Clock
    ids: IdSource
    session_file: Path | None = None  # None: a new session under `sessions_dir`
    sessions_dir: Path | None = None
    leaf_id: str | None = None  # None: the last entry of the file, as in Pi
    tools: tuple[AnyTool, ...] | None = None  # None: the coding tools on `cwd`
    system_prompt: str | None = None  # None: built by the resource loader
    agent_dir: Path | None = None
    trusted: bool = False
    extension_paths: tuple[Path, ...] = ()
    ui: ExtensionUI = field(default_factory=NoUI)
    sleep: Callable[[int], Awaitable[None]] = lambda ms: asyncio.sleep(ms / 1000)
    compaction: CompactionSettings = DEFAULT_COMPACTION_SETTINGS
    auto_retry: bool = True
    max_retries: int = 3
    retry_base_ms: int = 2000
    thinking_level: ThinkingLevel = "off"
    models: tuple[Model, ...] = ()  # what a client may switch to; () means only `model`
    opener: Opener = open_text  # how session files are opened; tests inject failures here
    max_turns: int = 50
    context_ceiling: Path | None = None  # AGENTS.md is looked for no higher than this


THINKING_LEVELS: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel)


def supported_thinking_levels(model: Model) -> tuple[ThinkingLevel, ...]:
    """Pi's rule: a reasoning model allows every level up to "high" ("xhigh" and "max" only
    where a model maps them, which no model here does), any other only "off"."""
    return THINKING_LEVELS[:-2] if model.reasoning else ("off",)


def clamp_thinking_level(model: Model, level: str) -> ThinkingLevel:
    """Pi's `clampThinkingLevel`: `level` if allowed, else the highest allowed one (the allowed
    levels are a prefix of THINKING_LEVELS, so none is above); an unknown level is "off"."""
    allowed = supported_thinking_levels(model)
    index = THINKING_LEVELS.index(level) if level in THINKING_LEVELS else 0
    return allowed[min(index, len(allowed) - 1)]


def check_images(model: Model, images: tuple[ImageContent, ...]) -> None:
    """Images go only to a model that takes them; Pi would swap in a placeholder text."""
    if images and "image" not in model.input:
        raise ValueError(f"model {model.provider}/{model.id} does not accept images; "
                         f"switch to one that does (get_available_models lists them)")


def summary_retry(config: RuntimeConfig) -> SummaryRetry:
    """Pi retries a summary call as it retries a run (its `retry` settings): same errors, waits."""
    return SummaryRetry(is_transient, retry_delays(config.retry_base_ms, config.max_retries),
                        config.sleep)


@dataclass(frozen=True)
class Assembly:
    loop: LoopConfig
    resources: Resources
    extensions: LoadedExtensions
    runner: ExtensionRunner
    diagnostics: tuple[str, ...]


def assemble(config: RuntimeConfig) -> Assembly:
    core = list(config.tools) if config.tools is not None else coding_tools(Workspace(config.cwd))
    # No agent folder (a test's runtime): only the files named in `extension_paths`.
    paths, missing = discover(config.agent_dir, config.cwd, config.extension_paths,
                              is_trusted=lambda _: config.trusted)
    extensions = load_extensions(paths, config.cwd, config.ui,
                                 core_tools=[tool.name for tool in core])
    extensions.diagnostics[:0] = missing  # a missing or untrusted file is said, not skipped
    tools = [*core, *extensions.tools()]
    resources = ResourceLoader(cwd=config.cwd, agent_dir=config.agent_dir or default_agent_dir(),
                               trust=trust_everything if config.trusted else trust_nothing,
                               tool_names=tuple(tool.name for tool in tools),
                               tool_prompts=tool_prompts_for(tools),
                               system_prompt=config.system_prompt,
                               context_ceiling=config.context_ceiling).load()
    runner = ExtensionRunner(extensions.extensions)
    loop = LoopConfig(model=config.model, stream=config.providers.stream,
                      tools=ToolRegistry(tools), system_prompt=resources.system_prompt,
                      options=StreamOptions(clock=config.clock),
                      convert_to_llm=convert_to_llm,  # type: ignore[arg-type]
                      tool_hooks=tool_hooks(runner), max_turns=config.max_turns)
    notes = (*(d.line() for d in resources.diagnostics), *extensions.diagnostics)
    return Assembly(loop, resources, extensions, runner, tuple(notes))


def open_writer(config: RuntimeConfig) -> SessionWriter:
    """The session to append to: an existing file at the chosen leaf (or, as in Pi, its last
    entry), else a new one."""
    path = config.session_file
    if path is None or not path.exists():
        return new_session_file(config, path=path)
    writer = SessionWriter.resume(read_session(path), ids=config.ids, clock=config.clock,
                                  opener=config.opener)
    if config.leaf_id is not None:
        writer.branch(config.leaf_id)
    try:
        writer.context()  # a loop of parents is found now, and said with the file's name
    except SessionError as error:
        writer.close()
        raise SessionError(f"{path}: {error}") from None
    return writer


def new_session_file(config: RuntimeConfig, parent_session: str | None = None,
                     path: Path | None = None) -> SessionWriter:
    """A new session at `path`, else in the sessions folder in Pi's layout; its first entries
    name the model and the thinking level it starts with."""
    if path is None:
        writer = start_session(sessions_dir(config), str(config.cwd), config.ids(),
                               ids=config.ids, clock=config.clock,
                               parent_session=parent_session, opener=config.opener)
    else:
        header = SessionHeader(version=CURRENT_VERSION, id=config.ids(),
                               timestamp=iso_timestamp(config.clock()), cwd=str(config.cwd))
        writer = SessionWriter.create(path, header, ids=config.ids, clock=config.clock,
                                      opener=config.opener)
    writer.append_model_change(config.model.provider, config.model.id)
    writer.append_thinking_level_change(config.thinking_level)
    return writer


def sessions_dir(config: RuntimeConfig) -> Path:
    return config.sessions_dir or sessions_root(Path.home())
