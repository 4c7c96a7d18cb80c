"""`python -m course extensions list`: which extensions would load here, and why not (step 12).

It runs exactly the discovery and loading the agent would, with no model and nobody to ask
(every `confirm` says no), and prints each loaded extension with what it registered, then one
note per skipped folder or refused file. The project folder counts as trusted only with
`--trust`, so looking at an unknown repository never runs its code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from pi.coding_agent.extensions.api import Extension
from pi.coding_agent.extensions.loader import discover, load_extensions
from pi.coding_agent.tools.sets import coding_tools
from pi.coding_agent.tools.workspace import Workspace

extensions_app = typer.Typer(no_args_is_help=True, help="Inspect extensions before trusting them.")


@extensions_app.callback()
def extensions_group() -> None:
    """Inspect extensions before trusting them."""


def summary(extension: Extension) -> str:
    parts = [
        ("tools", ", ".join(tool.name for tool in extension.tools)),
        ("commands", ", ".join(f"/{command.name}" for command in extension.commands)),
        ("handlers", ", ".join(dict.fromkeys(name for name, _ in extension.handlers))),
    ]
    return " · ".join(f"{label}: {names}" for label, names in parts if names) or "nothing"


@extensions_app.command("list")
def list_extensions(
    agent_dir: Annotated[Path, typer.Option(help="the user's agent folder")] = Path("~/.pi/agent"),
    cwd: Annotated[Path, typer.Option(help="the project folder")] = Path("."),
    trust: Annotated[bool, typer.Option(help="load the project's .pi/extensions too")] = False,
    extension: Annotated[list[Path] | None, typer.Option("-e", "--extension",
                                                         help="an extra extension file")] = None,
) -> None:
    """Load the extensions the agent would load and show what each one registered."""
    root = cwd.resolve()
    if not root.is_dir():  # as pi-agent says it: one line, exit 2
        print(f"error: --cwd {cwd}: not a folder", file=sys.stderr)
        raise typer.Exit(2)
    paths, notes = discover(agent_dir.expanduser(), root, extension or [],
                            is_trusted=lambda project: trust)
    core = [tool.name for tool in coding_tools(Workspace(root), root)]
    loaded = load_extensions(paths, root, core_tools=core)
    out = Console(highlight=False, soft_wrap=True)
    out.print(Text(f"{len(loaded.extensions)} loaded, {len(loaded.diagnostics)} refused", "bold"))
    for ext in loaded.extensions:
        out.print(Text.assemble((f"  {ext.path.name}", "cyan"), f"  {summary(ext)}"))
    for line in notes + loaded.diagnostics:
        out.print(Text.assemble(("note:", "yellow"), f" {line}"))
