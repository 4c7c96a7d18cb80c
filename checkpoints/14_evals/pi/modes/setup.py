"""From command-line options to a RuntimeConfig: model, providers, clock, ids.

The Runtime reads nothing on its own (config.py), so this is the one place where the outside
world comes in: the environment (base URLs, keys), the wall clock, random ids. Offline runs
keep them out: with `--script`, or with PI_COURSE_DETERMINISTIC=1, the clock is fixed and ids
count up, so the same command writes the same session file byte for byte. Without a script
the MockModel answers with a built-in policy (`offline_reply`), so `pi-agent -p "hi"` works
on a machine with no key and no network. A run has no turn limit unless `--max-turns` sets
one, as in Pi, whose loop has none: a long real task must not stop half done.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.ai.bounded import what_is_at
from pi.ai import Model
from pi.ai.credentials import ENV_KEYS, CredentialError, Credentials
from pi.ai.models_catalog import PUBLIC_BASE_URLS, ModelRefError, builtin_models, find_model
from pi.ai.registry import builtin_providers
from pi.coding_agent.extensions.api import ExtensionUI
from pi.coding_agent.resources.loader import default_agent_dir
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import Clock, IdSource, fixed_clock, random_ids, sequential_ids
from pi.coding_agent.session.storage import sessions_root

DETERMINISTIC_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
ECHO_LIMIT = 200
NO_TURN_LIMIT = sys.maxsize  # the loop counts turns up to its limit; this one is never reached


class SetupError(Exception):
    """An option that cannot be used; the text says which and how to fix it."""


@dataclass(frozen=True)
class AgentOptions:
    model: str = "mock/mock-1"
    script: Path | None = None
    session: Path | None = None
    leaf: str | None = None
    cwd: Path = Path()
    auto_compaction: bool = True
    auto_retry: bool = True
    trust_project: bool = False
    agent_dir: Path | None = None
    extensions: tuple[Path, ...] = ()
    max_turns: int | None = None  # None: no limit, as in Pi


def offline_reply(request: dict[str, Any], number: int) -> Any:
    """The built-in MockModel policy: echo the last user text, never call a tool."""
    from mock_model import text, turn

    said = next((m.get("content") for m in reversed(request.get("messages", []))
                 if m.get("role") == "user"), "")
    if not isinstance(said, str):
        said = " ".join(b.get("text", "") for b in said if b.get("type") == "text")
    short = " ".join(said.split())[:ECHO_LIMIT]
    return turn(text(f'(offline MockModel, no script) You said: "{short}"'))


def mock_source(script: Path | None) -> Any:
    from mock_model import MockModel, ScriptError, load_script

    if script is None:
        return MockModel(responder=offline_reply)
    try:
        return MockModel(load_script(script))
    except ScriptError as error:  # its text already names the file, turn and field
        raise SetupError(str(error)) from None


def check_key(model: Model, credentials: Credentials) -> None:
    """A public endpoint needs a key; a local server (a base URL of your own) may not."""
    try:
        found = credentials.resolve(model.provider)
    except CredentialError as error:
        raise SetupError(str(error)) from None
    if found is None and model.base_url == PUBLIC_BASE_URLS.get(model.provider):
        variable = ENV_KEYS.get(model.provider, "the provider's key variable")
        raise SetupError(f"no API key for {model.provider}: set {variable} or store a key in "
                         f"{credentials.auth_file} (offline: leave --model at mock/mock-1)")


def usable_models(catalog: Mapping[str, Model], chosen: Model,
                  credentials: Credentials) -> tuple[Model, ...]:
    """What `get_available_models` lists, as Pi lists models with a key: the chosen model
    first, then every catalog model of the same kind (MockModel or HTTP) that has a key."""
    def usable(model: Model) -> bool:
        if (model.api == "mock") != (chosen.api == "mock"):
            return False
        try:
            check_key(model, credentials)
        except SetupError:
            return False
        return True

    others = [m for m in catalog.values() if usable(m) and (m.provider, m.id) != (
        chosen.provider, chosen.id)]
    return (chosen, *others)


def time_and_ids(deterministic: bool) -> tuple[Clock, IdSource]:
    if deterministic:
        return fixed_clock(DETERMINISTIC_START_MS), sequential_ids()
    return (lambda: time.time_ns() // 1_000_000), random_ids(random.Random())


def build_config(options: AgentOptions, ui: ExtensionUI,
                 env: Mapping[str, str] | None = None) -> RuntimeConfig:
    env = os.environ if env is None else env
    catalog = builtin_models(env)
    try:
        model = find_model(options.model, catalog)
    except ModelRefError as error:
        raise SetupError(str(error)) from None
    agent_dir = options.agent_dir or default_agent_dir()
    credentials = Credentials(agent_dir / "auth.json", env)
    if model.api == "mock":
        providers = builtin_providers(mock=mock_source(options.script))
    elif options.script is not None:
        raise SetupError(f"--script drives the MockModel; it cannot be used with --model "
                         f"{options.model}")
    else:
        check_key(model, credentials)
        providers = builtin_providers(credentials=credentials)
    cwd = options.cwd.resolve()
    if not cwd.is_dir():
        raise SetupError(f"--cwd {options.cwd}: not a folder")
    if options.max_turns is not None and options.max_turns < 1:
        raise SetupError(f"--max-turns {options.max_turns}: give at least 1 (or leave it out "
                         "for no limit)")
    if options.leaf is not None and not (options.session and options.session.is_file()):
        raise SetupError(f"--leaf needs an existing --session file ({options.session})")
    for path in options.extensions:  # asked for by name: a typo must not pass unnoticed
        if (found := what_is_at(path)) != "a file":
            raise SetupError(f"-e {path}: no such extension file" if found == "nothing" else
                             f"-e {path}: is {found}, not an extension file")
    deterministic = options.script is not None or env.get("PI_COURSE_DETERMINISTIC") == "1"
    clock, ids = time_and_ids(deterministic)
    try:
        sessions = sessions_root(Path.home(), agent_dir / "sessions")
    except SessionError as error:
        raise SetupError(str(error)) from None
    try:
        session_file = options.session.resolve() if options.session else None
    except (OSError, RuntimeError) as error:  # a link loop
        raise SetupError(f"--session {options.session}: {error}") from None
    return RuntimeConfig(
        cwd=cwd, model=model, providers=providers, clock=clock, ids=ids,
        session_file=session_file,
        leaf_id=options.leaf, agent_dir=agent_dir, sessions_dir=sessions,
        trusted=options.trust_project, ui=ui,
        extension_paths=tuple(path.resolve() for path in options.extensions),
        auto_compaction=options.auto_compaction, auto_retry=options.auto_retry,
        models=usable_models(catalog, model, credentials),
        max_turns=options.max_turns or NO_TURN_LIMIT)
