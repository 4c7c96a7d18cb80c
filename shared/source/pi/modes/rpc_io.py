"""The two streams of rpc mode, and the extension UI that lives on them.

stdout carries JSON lines from one writer only (responses, events and UI requests are whole
lines, never interleaved mid-line). stdin is read by a thread that hands each line to the
event loop, so commands keep arriving while a prompt runs: a steer, an abort, or the answer
to a question an extension is waiting on. An extension's `ui.confirm` becomes an
`extension_ui_request` with an id; it waits until the client sends the
`extension_ui_response` with that id. If stdin ends first, the answer is no.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from pi.ai.bounded import read_json
from pi.ai.messages import LONE_SURROGATE, json_text
from pi.coding_agent.extensions.api import NotifyLevel

Write = Callable[[dict[str, Any]], None]


def use_utf8(*streams: TextIO) -> None:
    """JSON lines are UTF-8 whatever the locale says (a C locale would reject 'é')."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(encoding="utf-8")


class JsonLines:
    """Writes each object as one compact JSON line and flushes at once."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, data: dict[str, Any]) -> None:
        self.stream.write(json_text(data) + "\n")  # a lone surrogate goes out escaped
        self.stream.flush()


class RpcUI:
    """ExtensionUI for rpc mode: questions go out as requests, answers come back by id."""

    def __init__(self, write: Write) -> None:
        self.write = write
        self.pending: dict[str, asyncio.Future[bool]] = {}
        self.count = 0
        self.closed = False

    def next_id(self) -> str:
        self.count += 1
        return f"ui-{self.count}"  # deterministic; Pi uses a random UUID

    async def confirm(self, title: str, message: str) -> bool:
        if self.closed:
            return False
        request_id = self.next_id()
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = answer
        self.write({"type": "extension_ui_request", "id": request_id, "method": "confirm",
                    "title": title, "message": message})
        try:
            return await answer
        finally:
            self.pending.pop(request_id, None)

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self.write({"type": "extension_ui_request", "id": self.next_id(), "method": "notify",
                    "message": message, "notifyType": level})

    def answer(self, response: dict[str, Any]) -> None:
        """Settle the question `response["id"]`; an unknown id is ignored, as in Pi."""
        waiting = self.pending.get(str(response.get("id")))
        if waiting is not None and not waiting.done():
            confirmed = response.get("confirmed") is True and not response.get("cancelled")
            waiting.set_result(confirmed)

    def close(self) -> None:
        """No more answers will come: every open question, and every later one, is a no."""
        self.closed = True
        for waiting in self.pending.values():
            if not waiting.done():
                waiting.set_result(False)


def read_lines_in_thread(stream: TextIO, queue: asyncio.Queue[str | None]) -> threading.Thread:
    """Feed `stream`'s lines into `queue` from a daemon thread; None marks the end.

    The bytes are read, not the text: a line that is not UTF-8 must become one error
    response, not end the reading thread (which left the server waiting forever). Each line
    is decoded with `surrogateescape`, so its bad bytes show as lone surrogates, which valid
    UTF-8 never gives; `parse_command` refuses such a line.
    """
    loop = asyncio.get_running_loop()
    binary = getattr(stream, "buffer", None)

    def lines() -> Iterator[str]:
        if binary is None:
            yield from stream
            return
        for raw in binary:
            yield raw.decode("utf-8", "surrogateescape")

    def pump() -> None:
        try:
            for line in lines():
                loop.call_soon_threadsafe(queue.put_nowait, line)
        except RuntimeError:  # the loop has ended (the server stopped early): stop reading
            return
        except (OSError, ValueError):  # stdin broke or was closed: that is its end
            pass
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(queue.put_nowait, None)

    thread = threading.Thread(target=pump, name="rpc-stdin", daemon=True)
    thread.start()
    return thread


class BadCommand(Exception):
    """A line that is not a command; the message says why, for the one error response."""


def parse_command(line: str) -> dict[str, Any]:
    """The JSON object on one line, or BadCommand saying what is wrong with it.

    Whatever a client sends, the answer must be JSON again: `NaN` and `Infinity` are not
    JSON and are refused, and a number too big for a float (`1e400`) reads as null, as
    JavaScript's JSON.stringify would write it. A line nested too deeply to read, or not
    UTF-8, is refused like any other bad line.
    """
    if LONE_SURROGATE.search(line):
        raise BadCommand("Failed to parse command: the line is not valid UTF-8")
    try:
        command = read_json(line, parse_constant=refuse_constant, parse_float=finite_or_none)
    except json.JSONDecodeError as error:
        raise BadCommand(f"Failed to parse command: {error}") from None
    except ValueError as error:
        raise BadCommand(f"Failed to parse command: {error}") from None
    if not isinstance(command, dict):
        raise BadCommand("Failed to parse command: expected a JSON object")
    return command


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def finite_or_none(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None
