"""Rpc mode, Pi's protocol for driving the agent from another program.

Commands arrive as JSON lines on stdin; responses and the runtime's events leave as JSON
lines on stdout, interleaved. Every command is handled in its own task, as in Pi, so a slow
one (a compaction, a shell command) does not hold up an `abort`. A `prompt` is answered as
soon as it is accepted; the run goes on in the background and its events follow. When stdin
ends, the server waits for the run in progress, confirms every write (flush) and closes the
session: the transcript on disk is complete before the process exits.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

from pi.ai import AbortController, ImageContent
from pi.coding_agent.runtime.events import AutoCompactionEnd, AutoCompactionStart, RuntimeEvent
from pi.coding_agent.runtime.runtime import Runtime
from pi.modes.events_json import entry_lookup, event_json
from pi.modes.rpc_commands import CORE_COMMANDS, NULL
from pi.modes.rpc_io import (
    BadCommand,
    JsonLines,
    RpcUI,
    Write,
    parse_command,
    read_lines_in_thread,
)
from pi.modes.rpc_model_commands import MODEL_COMMANDS
from pi.modes.rpc_session_commands import SESSION_COMMANDS

COMMANDS = {**CORE_COMMANDS, **SESSION_COMMANDS, **MODEL_COMMANDS}


def response(request_id: Any, command: str, success: bool, **rest: Any) -> dict[str, Any]:
    """Pi's response: `id` (when the command had one), type, command, success, data|error."""
    head = {} if request_id is None else {"id": request_id}
    return {**head, "type": "response", "command": command, "success": success, **rest}


def success(command: str, request_id: Any, data: Any = None) -> dict[str, Any]:
    """No `data` when the handler returned None; `"data": null` when it returned NULL."""
    if data is None:
        return response(request_id, command, True)
    return response(request_id, command, True, data=None if data is NULL else data)


def failure(command: str, request_id: Any, error: str) -> dict[str, Any]:
    return response(request_id, command, False, error=error)


class RpcServer:
    """One runtime (replaced by new_session and fork), its run, and the open commands."""

    def __init__(self, runtime: Runtime, ui: RpcUI, write: Write) -> None:
        self.ui, self.write = ui, write
        self.run: asyncio.Task[None] | None = None
        self.bash: AbortController | None = None
        self.compacting = False
        self.tasks: set[asyncio.Task[None]] = set()
        self.runtime = runtime
        self.unsubscribe = runtime.subscribe(self.on_event)

    @property
    def streaming(self) -> bool:
        return self.run is not None and not self.run.done()

    def on_event(self, event: RuntimeEvent) -> None:
        if isinstance(event, AutoCompactionStart | AutoCompactionEnd):
            self.compacting = isinstance(event, AutoCompactionStart)
        self.write(event_json(event, entry_lookup(self.runtime.writer.tree.by_id)))

    def switch(self, runtime: Runtime) -> None:
        """Go on with another runtime (a new session or a fork)."""
        self.unsubscribe()
        self.runtime = runtime
        self.unsubscribe = runtime.subscribe(self.on_event)

    def start_prompt(self, text: str, request_id: Any,
                     images: tuple[ImageContent, ...] = ()) -> None:
        """Run the prompt in the background; a failure is one more `prompt` response."""

        async def run() -> None:
            try:
                await self.runtime.prompt(text, images)
            except Exception as error:  # the client must hear of it; the server goes on
                self.write(failure("prompt", request_id, str(error)))

        self.run = asyncio.create_task(run())

    async def serve(self, lines: asyncio.Queue[str | None]) -> None:
        """Handle lines until the input ends, then finish cleanly."""
        while (line := await lines.get()) is not None:
            if line.strip():
                self.accept(line)
        await self.finish()

    def accept(self, line: str) -> None:
        try:
            command = parse_command(line)
        except BadCommand as error:
            self.write(failure("parse", None, str(error)))
            return
        if command.get("type") == "extension_ui_response":
            self.ui.answer(command)
        else:
            task = asyncio.create_task(self.respond(command))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def respond(self, command: dict[str, Any]) -> None:
        kind, request_id = str(command.get("type")), command.get("id")
        handler = COMMANDS.get(kind)
        if handler is None:
            self.write(failure(kind, request_id, f"Unknown command: {kind}"))
            return
        try:
            data = await handler(self, command)
        except Exception as error:  # CommandError, SessionError, …: one error response
            self.write(failure(kind, request_id, str(error) or type(error).__name__))
            return
        self.write(success(kind, request_id, data))

    async def finish(self) -> None:
        """Input ended: nobody can answer questions now; wait, flush, close."""
        self.ui.close()
        while self.tasks or self.streaming:
            await asyncio.gather(*self.tasks, *([self.run] if self.run else []))
        await self.runtime.flush()
        await self.runtime.close()


async def serve_stdio(server: RpcServer, stdin: TextIO) -> None:
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    read_lines_in_thread(stdin, lines)
    await server.serve(lines)


def run_rpc(runtime: Runtime, ui: RpcUI, out: JsonLines, stdin: TextIO | None = None) -> int:
    """Serve until stdin ends; 0, or 1 when the session could not be written."""
    try:
        asyncio.run(serve_stdio(RpcServer(runtime, ui, out.write), stdin or sys.stdin))
    except Exception as error:  # RuntimePoisoned, SessionError: one line, no traceback
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
