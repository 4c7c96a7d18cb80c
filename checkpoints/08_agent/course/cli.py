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


def read_input(file: Path) -> bytes:
    """The bytes of a file named on the command line. Anything else is one error line
    saying what it is: a folder, or a FIFO or device that would never end."""
    try:
        mode = file.stat().st_mode
        if stat.S_ISREG(mode):
            return file.read_bytes()
    except OSError as error:
        found = "is a link loop, not a file" if error.errno == errno.ELOOP else error.strerror
        raise fail(f"{file}: {found or error}") from None
    kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device"
    raise fail(f"{file}: is {kind}, not a file")


@app.command()
def protocol(
    file: Annotated[Path, typer.Argument(help="a Pi session (.jsonl) or one message (.json)")],
) -> None:
    """Validate every message in FILE against the protocol and count them by role."""
    from pi.ai import ProtocolError, parse_message

    counts: dict[str, int] = {}
    try:
        for where, data in read_messages(file):
            message = parse_message(data, where)
            counts[message.role] = counts.get(message.role, 0) + 1
    except (OSError, ProtocolError, ValueError) as error:
        raise fail(str(error)) from None
    for role, count in sorted(counts.items()):
        console.print(f"{role:<15} {count}", markup=False)


def read_messages(file: Path) -> list[tuple[str, object]]:
    """(where, data) for each message: a `.json` file is one message, `.jsonl` a session."""
    text = read_input(file).decode("utf-8")
    if file.suffix != ".jsonl":
        try:
            return [(f"{file}", json.loads(text))]
        except RecursionError:
            raise ValueError(f"{file}: nested too deeply to read") from None
    found: list[tuple[str, object]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{file}:{number}: not valid JSON ({error.msg})") from None
        except RecursionError:
            raise ValueError(f"{file}:{number}: nested too deeply to read") from None
        if isinstance(entry, dict) and entry.get("type") == "message":
            found.append((f"{file}:{number}: message", entry.get("message")))
    return found


@app.command()
def model(
    script: Annotated[Path, typer.Argument(help="a MockModel script (.json or .yaml)")],
    prompt: Annotated[str, typer.Option(help="the user message")] = "Hello",
) -> None:
    """Send one request through the model boundary and print each event as it arrives."""
    from pi.ai import Context, MockProvider, Model, Providers, UserMessage, dump_message
    from pi.ai.messages import json_text

    async def run() -> None:
        providers = Providers({"mock": MockProvider(load_mock(script))})
        mock = Model(id="mock-1", api="mock", provider="mock")
        context = Context(messages=(UserMessage(content=prompt, timestamp=0),))
        stream = providers.stream(mock, context)
        async for event in stream:
            detail = getattr(event, "delta", "")
            console.print(f"{event.type:<15} {json_text(detail)[1:-1]}", markup=False)
        print(json_text(dump_message(await stream.result()), indent=2, sort_keys=True))

    asyncio.run(run())


wire_app = typer.Typer(no_args_is_help=True, help="Look at what a provider receives.")
app.add_typer(wire_app, name="wire")


@wire_app.command("decode")
def wire_decode(
    file: Annotated[Path, typer.Argument(help="a saved OpenAI SSE byte stream (.sse)")],
    as_json: Annotated[bool, typer.Option("--json", help="print the message as JSON")] = False,
) -> None:
    """Run a saved OpenAI SSE stream through the provider and show the reply it makes."""
    from course.wire import decode_sse_bytes, summary_lines
    from pi.ai import dump_message
    from pi.ai.messages import json_text

    data = read_input(file)
    if b"data:" not in data:
        raise fail(f"{file}: not a server-sent event stream (no `data:` lines)")
    message = asyncio.run(decode_sse_bytes(data))
    if as_json:
        print(json_text(dump_message(message), indent=2, sort_keys=True))
        return
    for line in summary_lines(message):
        console.print(line, markup=False)


from course.eval_driver import eval_driver  # noqa: E402

app.command("eval-driver")(eval_driver)
