"""Command line: `python -m mock_model play SCRIPT` and `python -m mock_model serve SCRIPT`.

Seeing the exact event stream a script produces is the quickest way to learn the protocol
and to debug a script; `serve` puts the same script behind a local HTTP server that speaks
the OpenAI and Anthropic wire formats, for clients that need a real socket.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .http.server import DEFAULT_HOST, MockServer
from .http.wire import encodable
from .loading import load_script
from .model import MockModel
from .script import ScriptError, Turn

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
    for line in asyncio.run(_event_lines(MockModel(_load_or_exit(script)), prompt)):
        typer.echo(line)


@app.command()
def serve(
    script: Annotated[Path, typer.Argument(help="Script file (.json, .yaml or .yml).")],
    host: Annotated[str, typer.Option(help="Loopback address to bind.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port; 0 picks a free one.")] = 0,
) -> None:
    """Serve the script over HTTP (OpenAI and Anthropic routes) until killed.

    The first stdout line is `listening on URL`, so a parent process can wait for it.
    """
    model = MockModel(_load_or_exit(script))
    try:
        server = MockServer(model, host, port)
    except (ValueError, OSError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    typer.echo(f"listening on {server.url}")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _load_or_exit(script: Path) -> tuple[Turn, ...]:
    """The script's turns; a bad script is a one-line error on stderr and exit code 2."""
    try:
        return load_script(script)
    except ScriptError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None


def one_prompt_request(prompt: str, timestamp: int) -> dict[str, Any]:
    user_message = {"role": "user", "content": prompt, "timestamp": timestamp}
    return {"model": "mock-1", "messages": [user_message]}


async def _event_lines(model: MockModel, prompt: str) -> list[str]:
    request = one_prompt_request(prompt, model.clock.now_ms())
    return [
        encodable(json.dumps(stream_event, sort_keys=True, ensure_ascii=False))
        async for stream_event in model.stream(request)
    ]
