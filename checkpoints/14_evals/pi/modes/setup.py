"""From command-line options to a Runtime, and the mode run on it.

The one place the outside world comes in: environment, keys, wall clock, random ids. With
`--script` or PI_COURSE_DETERMINISTIC=1 the clock is fixed and ids count up, so the same
command writes the same session file byte for byte."""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rich.console import Console

from mock_model import MockModel, ScriptError, load_script, text, turn
from pi.ai import Model
from pi.ai.credentials import ENV_KEYS, CredentialError, Credentials
from pi.ai.registry import (PUBLIC_BASE_URLS, ModelRefError, builtin_models,
                             builtin_providers, find_model)
from pi.coding_agent.extensions.api import ExtensionUI, NoUI
from pi.coding_agent.extensions.loader import discover
from pi.coding_agent.resources.loader import default_agent_dir
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import (Clock, IdSource, SessionError, fixed_clock,
                                             random_ids, sequential_ids)
from pi.coding_agent.session.show import printable
from pi.coding_agent.session.storage import cwd_folder_name, sessions_root
from pi.modes.interactive import run_interactive
from pi.modes.print_mode import json_lines, run_print, run_to_end
from pi.modes.rpc import RpcUI, run_rpc

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
    pick: Literal["latest", "ask"] | None = None  # --continue, --resume
    cwd: Path = Path()
    auto_retry: bool = True
    trust_project: bool = False
    agent_dir: Path | None = None
    extensions: tuple[Path, ...] = ()
    max_turns: int | None = None  # None: no limit, as in Pi


def offline_reply(request: dict[str, Any], number: int) -> Any:
    """The built-in MockModel policy: echo the last user text, never call a tool."""
    said = next((m.get("content") for m in reversed(request.get("messages", []))
                 if m.get("role") == "user"), "")
    if not isinstance(said, str):
        said = " ".join(b.get("text", "") for b in said if b.get("type") == "text")
    short = " ".join(said.split())[:ECHO_LIMIT]
    return turn(text(f'(offline MockModel, no script) You said: "{short}"'))


def lacks_key(model: Model, credentials: Credentials) -> bool:
    """A public endpoint needs a key; a local server (a base URL of your own) may not."""
    return (credentials.resolve(model.provider) is None
            and model.base_url == PUBLIC_BASE_URLS.get(model.provider))


def usable_models(catalog: Mapping[str, Model], chosen: Model,
                  credentials: Credentials) -> tuple[Model, ...]:
    """What `get_available_models` lists, as Pi lists models with a key: the chosen model
    first, then every catalog model of the same kind (MockModel or HTTP) that has a key."""
    def usable(model: Model) -> bool:
        same_kind = (model.api == "mock") == (chosen.api == "mock")
        another = (model.provider, model.id) != (chosen.provider, chosen.id)
        try:
            return same_kind and another and not lacks_key(model, credentials)
        except CredentialError:  # an unreadable auth.json: no key to count on
            return False

    return (chosen, *filter(usable, catalog.values()))


def time_and_ids(deterministic: bool) -> tuple[Clock, IdSource]:
    if deterministic:
        return fixed_clock(DETERMINISTIC_START_MS), sequential_ids()
    return (lambda: time.time_ns() // 1_000_000), random_ids(random.Random())


def build_config(options: AgentOptions, ui: ExtensionUI) -> RuntimeConfig:
    catalog = builtin_models(os.environ)
    model = find_model(options.model, catalog)
    agent_dir = options.agent_dir or default_agent_dir()
    credentials = Credentials(agent_dir / "auth.json", os.environ)
    if model.api == "mock":
        providers = builtin_providers(mock=MockModel(load_script(options.script)) if options.script
                                      else MockModel(responder=offline_reply))
    elif options.script is not None:
        raise SetupError(f"--script drives the MockModel; it cannot be used with --model "
                         f"{options.model}")
    elif lacks_key(model, credentials):
        variable = ENV_KEYS.get(model.provider, "the provider's key variable")
        raise SetupError(f"no API key for {model.provider}: set {variable} or store a key in "
                         f"{credentials.auth_file} (offline: leave --model at mock/mock-1)")
    else:
        providers = builtin_providers(credentials=credentials)
    cwd = options.cwd.resolve()
    if not cwd.is_dir():
        raise SetupError(f"--cwd {options.cwd}: not a folder")
    if options.max_turns is not None and options.max_turns < 1:
        raise SetupError(f"--max-turns {options.max_turns}: give at least 1 (or leave it out "
                         "for no limit)")
    extensions, missing = discover(None, Path(), options.extensions)
    if missing:  # asked for by name: a typo must not pass unnoticed
        raise SetupError(f"-e {missing[0]}")
    deterministic = options.script is not None or os.environ.get("PI_COURSE_DETERMINISTIC") == "1"
    clock, ids = time_and_ids(deterministic)
    sessions = sessions_root(Path.home(), agent_dir / "sessions")
    try:
        session_file = options.session.resolve() if options.session else None
    except (OSError, RuntimeError) as error:  # a link loop
        raise SetupError(f"--session {options.session}: {error}") from None
    if options.pick is not None and session_file is None:
        session_file = pick_session(sessions / cwd_folder_name(str(cwd)), options.pick)
    return RuntimeConfig(cwd=cwd, model=model, providers=providers, clock=clock, ids=ids,
                         session_file=session_file, agent_dir=agent_dir, sessions_dir=sessions,
                         trusted=options.trust_project, ui=ui, auto_retry=options.auto_retry,
                         extension_paths=tuple(extensions),
                         models=usable_models(catalog, model, credentials),
                         max_turns=options.max_turns or NO_TURN_LIMIT)


def pick_session(folder: Path, pick: str) -> Path | None:
    """Pi's --continue (the latest session of this folder, else a new one) and --resume (a
    numbered list, newest first, and the number typed on stdin)."""
    files = [path for path in folder.glob("*.jsonl") if path.is_file()]
    found = sorted(files, key=lambda path: path.stat().st_mtime, reverse=True)
    if pick == "latest" or not found:
        return found[0] if found else None
    for number, path in enumerate(found, start=1):
        print(f"{number:>3}  {printable(path.name)}", file=sys.stderr)
    print(f"session to resume (1-{len(found)}): ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline(100).strip()  # stdout stays the answer's, as in print mode
    if not answer.isdecimal() or not 1 <= int(answer) <= len(found):
        raise SetupError(f"--resume: {answer!r} is not a number from 1 to {len(found)}")
    return found[int(answer) - 1]


def open_runtime(options: AgentOptions, ui: ExtensionUI, warn: bool = True) -> Runtime:
    """The Runtime for these options; with `warn`, each note from loading is a warning on stderr."""
    try:
        runtime = Runtime(build_config(options, ui))
    except (ModelRefError, CredentialError, ScriptError, SessionError) as error:  # what, where
        raise SetupError(str(error)) from None
    if warn:
        for note in runtime.assembly.diagnostics:  # a name from a file may hold escapes
            print(f"warning: {printable(note)}", file=sys.stderr)
    return runtime


def run_mode(mode: str, options: AgentOptions, prompts: list[str]) -> int:
    """Run `mode` ("print", "json", "rpc" or "interactive") to its end; the exit code."""
    if mode == "rpc":
        ui = RpcUI(json_lines(sys.stdout))
        return run_rpc(open_runtime(options, ui), ui)
    # NoUI: nobody to ask (or a person who typed it), "no"; interactive mode shows the notes
    runtime = open_runtime(options, NoUI(), warn=mode != "interactive")
    if mode != "interactive":
        return run_print(runtime, prompts, sys.stdout, sys.stderr, as_json=mode == "json")

    async def talk() -> int:
        current = await run_interactive(runtime, Console())
        try:
            await current.flush()
        finally:
            await current.close()
        return 0

    return run_to_end(runtime, talk, sys.stderr)
