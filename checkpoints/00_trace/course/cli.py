"""The checkpoint's command line: each step adds the commands its new parts make possible.

Commands print one clear line and exit with code 2 on bad input; they never show a traceback
for a mistake a person can fix.
"""

from __future__ import annotations

import asyncio
import errno
import json
import stat
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from course import fail
from course.trace import format_timeline, observe_run

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
console = Console(highlight=False, soft_wrap=True)


@app.callback()
def main() -> None:
    """This checkpoint's command line (`python -m course COMMAND --help` for each command)."""


def load_mock(script: Path):  # type: ignore[no-untyped-def]
    from mock_model import MockModel, ScriptError, load_script

    try:
        return MockModel(load_script(script))
    except ScriptError as error:  # its message already names the file
        raise fail(str(error)) from None
    except OSError as error:
        raise fail(f"{script}: {error.strerror or error}") from None


@app.command()
def trace(
    script: Annotated[Path, typer.Argument(help="a MockModel script (.json or .yaml)")],
    prompt: Annotated[str, typer.Option(help="what the user asks")] = "Hello",
    workspace: Annotated[Path, typer.Option(help="folder the `read` tool reads from")] = Path(),
) -> None:
    """Run one prompt on a MockModel script and print the timeline of messages."""

    def read(arguments: dict[str, object]) -> str:
        return (workspace / str(arguments["path"])).read_text(encoding="utf-8")

    messages = asyncio.run(observe_run(load_mock(script), prompt, {"read": read}))
    for line in format_timeline(messages):  # half an emoji is shown escaped, not a crash
        console.print(line.encode("utf-8", "backslashreplace").decode("utf-8"), markup=False)


