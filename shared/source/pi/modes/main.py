"""`pi-agent`: the coding agent as a command, in Pi's four modes (print, json, rpc, interactive).

Only the options live here, so `--help` answers without loading the agent (setup.py does the
rest). A mistake a person can fix is one red line and exit code 2, no traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

# Named, not imported from pi/ai/registry.py (slow for --help); test_provider_registry checks.
EXAMPLE_MODELS = ("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6")

HELP = f"""Run the coding agent in --cwd: answer a prompt (-p), stream its events as JSON lines
(--mode json), speak Pi's RPC protocol on stdin/stdout (--mode rpc), or open the terminal UI.

Offline use (the default): --model mock/mock-1 plays --script FILE (.yaml or .json), or
without one a built-in policy echoes your last message. A --script run (or
PI_COURSE_DETERMINISTIC=1) is deterministic: a fixed clock, counted ids.

\b
  pi-agent -p --script fix.yaml "test_calc.py fails, fix it"

Real-model use: --model {EXAMPLE_MODELS[0]} or {EXAMPLE_MODELS[1]}; keys in
OPENAI_API_KEY / ANTHROPIC_API_KEY or <agent-dir>/auth.json; servers in OPENAI_BASE_URL /
ANTHROPIC_BASE_URL. Sessions go to <agent-dir>/sessions (default ~/.pi-course/agent) or to
--session FILE; --continue / --resume go on with one of this folder's sessions.
"""

app = typer.Typer(add_completion=False, rich_markup_mode=None, help=HELP)


def fail(text: str) -> typer.Exit:
    from pi.coding_agent.session.show import printable

    typer.echo(f"{typer.style('error:', fg='red')} {printable(text)}", err=True)  # no escapes
    return typer.Exit(2)


def show_version(asked: bool) -> None:
    """`pi-agent 0.1.0`: the installed pi-course version (a bare checkpoint has none)."""
    from importlib.metadata import PackageNotFoundError, version

    if asked:
        try:
            print(f"pi-agent {version('pi-course')}")
        except PackageNotFoundError:
            print("pi-agent (pi-course, not installed)")
        raise typer.Exit(0)


@app.command(help=HELP)
def main(
    messages: Annotated[list[str] | None, typer.Argument(help="the prompt(s), in order")] = None,
    print_mode: Annotated[bool, typer.Option("--print", "-p", help="answer and exit")] = False,
    mode: Annotated[Literal["print", "json", "rpc", "interactive"] | None,
                    typer.Option(help="default: print with -p, else interactive")] = None,
    model: Annotated[str, typer.Option(help="provider/model-id")] = "mock/mock-1",
    script: Annotated[Path | None, typer.Option(help="a MockModel script (mock/…)")] = None,
    session: Annotated[Path | None, typer.Option(help="session file to create or continue")] = None,
    continue_: Annotated[bool, typer.Option("--continue", "-c",
                                            help="continue this folder's latest session")] = False,
    resume: Annotated[bool, typer.Option("--resume", "-r",
                                         help="choose one of this folder's sessions")] = False,
    cwd: Annotated[Path, typer.Option(help="the agent's working folder")] = Path(),
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
    from pi.modes.setup import AgentOptions, SetupError, run_mode

    chosen = mode or ("print" if print_mode else "interactive")
    if chosen in ("print", "json") and not messages:
        raise fail(f"{chosen} mode needs a prompt, e.g. pi-agent -p \"hello\"")
    options = AgentOptions(model=model, script=script, session=session, cwd=cwd,
                           pick=("latest" if continue_ else "ask" if resume else None),
                           auto_retry=auto_retry, trust_project=trust_project, agent_dir=agent_dir,
                           extensions=tuple(extension or ()), max_turns=max_turns)
    try:
        code = run_mode(chosen, options, list(messages or []))
    except SetupError as error:
        raise fail(str(error)) from None
    raise typer.Exit(code)


if __name__ == "__main__":
    app()
