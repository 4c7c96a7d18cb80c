"""`pi-agent`: the coding agent of step 13 as a command, in Pi's four modes.

Everything here is wiring: options become a RuntimeConfig (pi/modes/setup.py), the config a
Runtime, and the mode decides where prompts come from and what is written out. Mistakes a
person can fix (an unknown model, a missing key, a bad script or session file) are one red
line and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # the agent itself is imported only to run it: `--help` starts quickly
    from rich.console import Console

    from pi.coding_agent.extensions.api import ExtensionUI
    from pi.coding_agent.runtime.runtime import Runtime
    from pi.modes.setup import AgentOptions

# The models the help names; tests/test_provider_registry.py checks that the built-in catalog
# (pi/ai/models_catalog.py) has them, so an id that left the catalog cannot linger here.
# (Not imported from the catalog: that would load every provider before `--help` answers.)
EXAMPLE_MODELS = ("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6")

HELP = f"""Run the coding agent in the working folder (--cwd): answer a prompt (-p), stream
its events as JSON lines (--mode json), speak Pi's RPC protocol on stdin/stdout (--mode
rpc), or open the terminal UI (the default mode).

\b
Offline use (the default; no key, no network):
  --model mock/mock-1 (the default) is the MockModel.
  With --script FILE it plays that MockModel script (.yaml or .json):
    pi-agent -p --script fix.yaml "test_calc.py fails, fix it"
  Without a script a built-in policy answers: it echoes your last
  message back as  (offline MockModel, no script) You said: "..."
  and never calls a tool.
  A --script run is deterministic: the clock starts at
  2026-01-01T00:00:00.000Z and steps 1 ms per reading, and entry ids
  count 00000001, 00000002, ...  PI_COURSE_DETERMINISTIC=1 does the
  same for any run.

\b
Real-model use:
  --model {EXAMPLE_MODELS[0]} or --model {EXAMPLE_MODELS[1]}
  (any model id of those two providers is accepted).
  Keys: OPENAI_API_KEY / ANTHROPIC_API_KEY, or <agent-dir>/auth.json.
  Servers: OPENAI_BASE_URL / ANTHROPIC_BASE_URL; a local
  OpenAI-compatible server may need no key at all.

Sessions go to <agent-dir>/sessions (default agent dir: ~/.pi-course/agent), or to
--session FILE, which is created or continued (at --leaf ID, else at its last entry).
A run has no turn limit, as in Pi (Ctrl-C stops one); --max-turns N stops it after N
turns and says so (print: stderr and exit 1; json and rpc: a turn_limit_reached event).
"""


class Mode(StrEnum):
    print = "print"
    json = "json"
    rpc = "rpc"
    interactive = "interactive"


app = typer.Typer(add_completion=False, rich_markup_mode=None, help=HELP)


@cache
def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def version_text() -> str:
    """`pi-agent 0.1.0`: the installed pi-course version (a bare checkpoint has none)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"pi-agent {version('pi-course')}"
    except PackageNotFoundError:
        return "pi-agent (pi-course, not installed)"


def show_version(asked: bool) -> None:
    if asked:
        print(version_text())
        raise typer.Exit(0)


def fail(text: str) -> typer.Exit:
    from rich.text import Text

    err_console().print(Text.assemble(("error:", "red"), f" {text}"))  # text is not markup
    return typer.Exit(2)


def open_runtime(options: AgentOptions, ui: ExtensionUI) -> Runtime:
    """The Runtime for these options; every note from loading is shown on stderr."""
    from pi.coding_agent.runtime.runtime import Runtime
    from pi.coding_agent.session.errors import SessionError
    from pi.coding_agent.session.show import printable
    from pi.modes.setup import SetupError, build_config

    try:
        runtime = Runtime(build_config(options, ui))
    except (SetupError, SessionError) as error:
        raise fail(str(error)) from None
    for note in runtime.assembly.diagnostics:  # a name from a file may hold escapes
        err_console().print(f"warning: {printable(note)}", markup=False)
    return runtime


def run_mode(mode: Mode, options: AgentOptions, messages: list[str]) -> int:
    from pi.coding_agent.extensions.api import NoUI
    from pi.modes.json_mode import run_json
    from pi.modes.print_mode import run_print
    from pi.modes.rpc_io import JsonLines, RpcUI, use_utf8
    from pi.modes.rpc_mode import run_rpc

    if mode in (Mode.print, Mode.json) and not messages:
        raise fail(f"{mode.value} mode needs a prompt, e.g. pi-agent -p \"hello\"")
    if mode is Mode.rpc:
        use_utf8(sys.stdin, sys.stdout)
        out = JsonLines(sys.stdout)
        ui = RpcUI(out.write)
        return run_rpc(open_runtime(options, ui), ui, out)
    if mode is Mode.interactive:
        return run_interactive_mode(open_runtime(options, NoUI()))
    runtime = open_runtime(options, NoUI())  # print and json: nobody to ask, so "no"
    if mode is Mode.json:
        use_utf8(sys.stdout)
        return run_json(runtime, messages)
    return run_print(runtime, messages)


def run_interactive_mode(runtime: Runtime) -> int:
    """The terminal UI (pi/modes/interactive.py), imported only when asked for."""
    from rich.console import Console

    from pi.modes.print_mode import run_to_end

    try:
        from pi.modes.interactive import run_interactive
    except ModuleNotFoundError as error:
        if error.name != "pi.modes.interactive":
            raise fail(f"interactive mode cannot start: {error}") from None
        raise fail("interactive mode is not in this checkpoint (pi/modes/interactive.py); "
                   "use -p, --mode json or --mode rpc") from None

    async def talk() -> int:
        await run_interactive(runtime, Console())
        await runtime.flush()
        return 0

    return run_to_end(runtime, talk, sys.stderr)


@app.command(help=HELP)
def main(
    messages: Annotated[list[str] | None, typer.Argument(help="the prompt(s), in order")] = None,
    print_mode: Annotated[bool, typer.Option("--print", "-p", help="answer and exit")] = False,
    mode: Annotated[Mode | None, typer.Option(help="default: print with -p, else interactive")
                    ] = None,
    model: Annotated[str, typer.Option(help="provider/model-id")] = "mock/mock-1",
    script: Annotated[Path | None, typer.Option(help="a MockModel script (mock/…)")] = None,
    session: Annotated[Path | None, typer.Option(help="session file to create or continue")] = None,
    leaf: Annotated[str | None, typer.Option(help="continue --session at this entry id")] = None,
    cwd: Annotated[Path, typer.Option(help="the agent's working folder")] = Path(),
    auto_compaction: Annotated[bool, typer.Option(help="compact when the context is full")] = True,
    auto_retry: Annotated[bool, typer.Option(help="retry rate limits and server errors")] = True,
    trust_project: Annotated[bool, typer.Option("--trust-project",
                                                help="use the project's .pi/ folder")] = False,
    agent_dir: Annotated[Path | None, typer.Option(help="default ~/.pi-course/agent")] = None,
    extension: Annotated[list[Path] | None, typer.Option("--extension", "-e",
                                                         help="load this extension file")] = None,
    max_turns: Annotated[int | None, typer.Option(
        help="stop a run after this many turns (default: no limit, as in Pi)")] = None,
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=show_version,
                                          help="print the version and exit")] = False,
) -> None:
    from pi.modes.setup import AgentOptions

    options = AgentOptions(model=model, script=script, session=session, leaf=leaf, cwd=cwd,
                           auto_compaction=auto_compaction, auto_retry=auto_retry,
                           trust_project=trust_project, agent_dir=agent_dir,
                           extensions=tuple(extension or ()), max_turns=max_turns)
    chosen = mode or (Mode.print if print_mode else Mode.interactive)
    raise typer.Exit(run_mode(chosen, options, list(messages or [])))


if __name__ == "__main__":
    app()
