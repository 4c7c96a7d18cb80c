"""Step 13: the two streams of rpc mode, and the extension UI that lives on them.

stdout carries JSON lines from one writer only (responses, events and UI requests are whole
lines, never interleaved mid-line). stdin is read by a thread that hands each line to the
event loop, so commands keep arriving while a prompt runs: a steer, an abort, or the answer
to a question an extension is waiting on. An extension's `ui.confirm` becomes an
`extension_ui_request` with an id; it waits until the client sends the
`extension_ui_response` with that id. If stdin ends first, the answer is no.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any, TextIO

from pi.coding_agent.extensions.ui import NotifyLevel

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
        self.stream.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
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
    """Feed `stream`'s lines into `queue` from a daemon thread; None marks the end."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        try:
            for line in stream:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:  # the loop has ended (the server stopped early): stop reading
            return

    thread = threading.Thread(target=pump, name="rpc-stdin", daemon=True)
    thread.start()
    return thread
