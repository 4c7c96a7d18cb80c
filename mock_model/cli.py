"""Command line for trying scripts by hand: `python -m mock_model play SCRIPT`.

Seeing the exact event stream a script produces is the quickest way to learn the protocol
and to debug a script. Commands live on one typer app so more (an HTTP `serve`) can be added
next to `play` without changing how the tool is invoked.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from .loading import load_script
from .model import MockModel
from .script import ScriptError

app = typer.Typer(help="A deterministic fake LLM that streams pi-ai events.", add_completion=False)

DEFAULT_PROMPT = "Hello"


@app.callback()
def main() -> None:
    """Play scripted model turns as pi-ai stream events."""


@app.command()
def play(
    script: Annotated[Path, typer.Argument(help="Script file (.json, .yaml or .yml).")],
    prompt: Annotated[str, typer.Option(help="Text of the single user message.")] = DEFAULT_PROMPT,
) -> None:
    """Send one request to the script's first turn and print its events as JSON lines."""
    try:
        turns = load_script(script)
    except ScriptError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    for line in asyncio.run(_event_lines(MockModel(turns), prompt)):
        typer.echo(line)


def one_prompt_request(prompt: str, timestamp: int) -> dict[str, Any]:
    user_message = {"role": "user", "content": prompt, "timestamp": timestamp}
    return {"model": "mock-1", "messages": [user_message]}


async def _event_lines(model: MockModel, prompt: str) -> list[str]:
    request = one_prompt_request(prompt, model.clock.now_ms())
    return [
        json.dumps(stream_event, sort_keys=True, ensure_ascii=False)
        async for stream_event in model.stream(request)
    ]
