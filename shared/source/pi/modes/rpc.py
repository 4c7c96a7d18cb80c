"""Rpc mode: Pi's protocol for driving the agent from another program (Pi's rpc-mode.ts).

Commands come as JSON lines on stdin (read by a thread, so a steer or an abort arrives while
a prompt runs), each in its own task; responses and events leave as JSON lines on stdout.
Each COMMANDS handler returns `data` (see NULL) or raises; session ones call runtime/commands.py."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import math
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, TextIO

from pydantic import TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from pi.agent.agent import MessageQueue
from pi.ai import (AbortController, AssistantMessage, ImageContent, Model, ToolCall, Usage,
                   dump_message)
from pi.ai.bounded import read_json
from pi.ai.messages import LONE_SURROGATE, describe_error
from pi.coding_agent.extensions.api import NotifyLevel
from pi.coding_agent.runtime import commands as session_commands
from pi.coding_agent.runtime.config import (THINKING_LEVELS, check_images,
                                           supported_thinking_levels)
from pi.coding_agent.runtime.events import CompactionEnd, CompactionStart, RuntimeEvent
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.entries import (BranchSummaryEntry, CompactionEntry, MessageEntry,
                                             SessionEntry, SessionError, UsageEntry,
                                             dump_line)
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.tokens import estimate_context_tokens
from pi.modes.print_mode import (Write, compaction_result_json, event_json, run_to_end,
                                 settled_json, without_none)

QUEUED = {"disposition": "queued"}  # what steer, follow_up and a prompt during a run answer
TREE_DEPTH = 200  # get_tree's nesting, well inside the JSON writer's recursion limit
NULL = ("null",)  # a handler's answer meaning `"data": null` (None means no data at all)
IMAGES = TypeAdapter(tuple[ImageContent, ...] | None)  # Pi's optional `images` of a prompt


class CommandError(Exception):
    """A line or command that cannot be carried out; the text goes into the error response."""


def parse_command(line: str) -> dict[str, Any]:
    """The JSON object on one line, or CommandError: not UTF-8, too deep or big, or `NaN`
    (the answer must be JSON again); `1e400` reads as null, as in JS."""
    if LONE_SURROGATE.search(line):  # what read_lines_in_thread makes of bytes not UTF-8
        raise CommandError("Failed to parse command: the line is not valid UTF-8")
    try:
        command = read_json(line, parse_constant=refuse_constant, parse_float=finite_or_none)
    except ValueError as error:  # not JSON (JSONDecodeError), NaN, or past a bound
        raise CommandError(f"Failed to parse command: {error}") from None
    if not isinstance(command, dict):
        raise CommandError("Failed to parse command: expected a JSON object")
    return command


def refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def finite_or_none(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None


def read_lines_in_thread(stream: TextIO, queue: asyncio.Queue[str | None]) -> None:
    """Feed `stream`'s lines into `queue` from a daemon thread; None marks the end. Bytes
    not UTF-8 become lone surrogates, refused by parse_command, not the end of reading."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        with contextlib.suppress(RuntimeError):  # the loop has ended: stop reading
            with contextlib.suppress(OSError, ValueError):  # stdin broke or closed: its end
                for line in getattr(stream, "buffer", stream):
                    if isinstance(line, bytes):
                        line = line.decode("utf-8", "surrogateescape")
                    loop.call_soon_threadsafe(queue.put_nowait, line)
            loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="rpc-stdin", daemon=True).start()


class RpcUI:
    """ExtensionUI over the streams: a question is an `extension_ui_request`, answered by id."""

    def __init__(self, write: Write) -> None:
        self.write = write
        self.pending: dict[str, asyncio.Future[bool]] = {}
        self.ids = itertools.count(1)  # ui-1, ui-2, …: deterministic; Pi uses a random UUID
        self.closed = False

    async def confirm(self, title: str, message: str) -> bool:
        if self.closed:
            return False
        request_id = f"ui-{next(self.ids)}"
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = answer
        self.write({"type": "extension_ui_request", "id": request_id, "method": "confirm",
                    "title": title, "message": message})
        try:
            return await answer
        finally:
            del self.pending[request_id]

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self.write({"type": "extension_ui_request", "id": f"ui-{next(self.ids)}",
                    "method": "notify", "message": message, "notifyType": level})

    def answer(self, response: dict[str, Any]) -> None:
        """Settle the question `response["id"]` (an unknown id is ignored, as in Pi)."""
        waiting = self.pending.get(str(response.get("id")))
        if waiting is not None and not waiting.done():
            waiting.set_result(response.get("confirmed") is True and not response.get("cancelled"))

    def close(self) -> None:
        """No more answers will come: every open question, and every later one, is a no."""
        self.closed = True
        for waiting in self.pending.values():
            if not waiting.done():
                waiting.set_result(False)


def response(command: dict[str, Any], success: bool, **rest: Any) -> dict[str, Any]:
    """Pi's response: `id` (when the command had one), type, command, success, data|error."""
    head = {} if command.get("id") is None else {"id": command["id"]}
    return {**head, "type": "response", "command": str(command.get("type")), "success": success,
            **rest}


class RpcServer:
    """One runtime (replaced by new_session, fork, clone, switch), its run, the open commands."""

    def __init__(self, runtime: Runtime, ui: RpcUI) -> None:
        self.ui, self.write = ui, ui.write  # responses and events go where the questions go
        self.run: asyncio.Task[None] | None = None
        self.bash: AbortController | None = None
        self.compacting = False
        self.tasks: set[asyncio.Task[None]] = set()
        self.runtime, self.unsubscribe = runtime, runtime.subscribe(self.on_event)

    @property
    def streaming(self) -> bool:
        return self.run is not None and not self.run.done()

    def on_event(self, event: RuntimeEvent) -> None:
        if isinstance(event, CompactionStart | CompactionEnd):
            self.compacting = isinstance(event, CompactionStart)
        self.write(event_json(event))

    async def switch(self, opening: Awaitable[Runtime]) -> dict[str, Any]:
        """Stop the run (as Pi does); only then start `opening` and go on in its runtime."""
        if self.streaming and self.run is not None:
            self.runtime.abort()
            await self.run
        runtime = await opening
        self.unsubscribe()
        self.runtime, self.unsubscribe = runtime, runtime.subscribe(self.on_event)
        return {"cancelled": False}

    async def serve(self, lines: asyncio.Queue[str | None]) -> None:
        """Handle lines until the input ends, then finish cleanly."""
        self.lines = lines
        while (line := await lines.get()) is not None:
            if line.strip():
                self.accept(line)
        await self.finish()

    def accept(self, line: str) -> None:
        try:
            command = parse_command(line)
        except CommandError as error:
            self.write(response({"type": "parse"}, False, error=str(error)))
            return
        if command.get("type") == "extension_ui_response":
            self.ui.answer(command)
        else:
            task = asyncio.create_task(self.respond(command))
            self.tasks.add(task)
            task.add_done_callback(self.settle)

    def settle(self, task: asyncio.Task[None]) -> None:
        """A task ended: one that raised (stdout broke) stays for finish to raise and ends input."""
        if task.cancelled() or task.exception() is None:
            self.tasks.discard(task)
        else:
            self.lines.put_nowait(None)

    async def respond(self, command: dict[str, Any]) -> None:
        handler = COMMANDS.get(str(command.get("type")))
        try:
            if handler is None:
                raise CommandError(f"Unknown command: {command.get('type')}")
            data = handler(self, command)
            data = await data if inspect.isawaitable(data) else data
        except Exception as error:  # CommandError, SessionError, …: one error response
            self.write(response(command, False, error=str(error) or type(error).__name__))
            return
        answer = {} if data is None else {"data": None if data is NULL else data}
        self.write(response(command, True, **answer))

    async def finish(self) -> None:
        """Input ended: nobody can answer questions now; wait, flush, close."""
        self.ui.close()
        while self.tasks or self.streaming:
            await asyncio.gather(*self.tasks, *([self.run] if self.run else []))
        await self.runtime.flush()
        await self.runtime.close()


def field(command: dict[str, Any], name: str, kind: type[Any] = str) -> Any:
    """The command's field `name`, which must be a `kind` (a JSON string unless told)."""
    if not isinstance(value := command.get(name), kind):
        wanted = {str: "a string", bool: "true or false"}[kind]
        raise CommandError(f"{command.get('type')}: field {name!r} must be {wanted}")
    return value


def optional_text(command: dict[str, Any], name: str) -> str | None:
    """The field `name` if it is a string; anything else counts as left out."""
    return value if isinstance(value := command.get(name), str) else None


def images_field(command: dict[str, Any]) -> tuple[ImageContent, ...]:
    """Pi's optional `images`: ImageContent blocks ({type: "image", data, mimeType})."""
    try:
        return IMAGES.validate_python(command.get("images")) or ()
    except ValidationError as error:
        raise CommandError(describe_error(error, f"{command.get('type')}: images")) from None


def model_json(model: Model) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True)


def prompt(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Answered once accepted (Pi 1.x says whether it started or was queued); the run goes
    on in the background, a failure is one more `prompt` response, and `agent_settled` says
    Pi will do nothing more by itself. During a run it must say how to queue."""
    text, images = field(command, "message"), images_field(command)
    runtime = server.runtime
    check_images(runtime.config.model, images)
    if not server.streaming:
        if runtime.poisoned is not None:
            raise RuntimePoisoned(f"the session can no longer be written: {runtime.poisoned}")

        async def run() -> None:
            try:
                await runtime.prompt(text, images)
            except Exception as error:  # the client must hear of it; the server goes on
                server.write(response(command, False, error=str(error)))
            server.write(settled_json(runtime))

        server.run = asyncio.create_task(run())
        server.run.add_done_callback(server.settle)
        return {"disposition": "started"}
    if command.get("streamingBehavior") == "steer":
        runtime.steer(text, images)
    elif command.get("streamingBehavior") == "followUp":
        runtime.follow_up(text, images)
    else:
        raise CommandError("Agent is already processing. Specify streamingBehavior ('steer' or "
                           "'followUp') to queue the message.")
    return QUEUED


def queue(put: Callable[[str, tuple[ImageContent, ...]], None],
          command: dict[str, Any]) -> dict[str, Any]:
    """steer or follow_up: the message waits in its queue (Pi 1.x answers how it was taken)."""
    put(field(command, "message"), images_field(command))
    return QUEUED


def clear_queue(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Take every queued message back as text, so a client can put it in its editor again."""
    agent = server.runtime.agent
    return {"steering": [session_commands.message_text(m) for m in agent.steering.drain()],
            "followUp": [session_commands.message_text(m) for m in agent.follow_ups.drain()]}


def get_entries(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Every entry in file order, or those after `since` (an id works as a lasting cursor)."""
    writer = server.runtime.writer
    entries = writer.tree.entries
    if command.get("since") is not None:
        ids = [entry.id for entry in entries]
        if (since := field(command, "since")) not in ids:
            raise CommandError(f"Entry not found: {since}")
        entries = entries[ids.index(since) + 1:]
    return {"entries": [dump_line(entry) for entry in entries], "leafId": writer.leaf_id}


def tree_nodes(tree: SessionTree, parent_id: str | None, depth: int) -> list[dict[str, Any]]:
    """get_tree's nodes {entry, children, label?} under `parent_id` (None: roots), to TREE_DEPTH."""
    children = tree.children(parent_id)
    if children and depth > TREE_DEPTH:
        raise CommandError(f"get_tree: the session is more than {TREE_DEPTH} entries deep; "
                           f"get_entries lists them flat")
    return [{"entry": dump_line(entry), "children": tree_nodes(tree, entry.id, depth + 1),
             **({"label": tree.labels[entry.id]} if entry.id in tree.labels else {})}
            for entry in children]


async def abort(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Stop the run, wait until it has ended, and hand the queued messages back."""
    queued = server.runtime.abort()
    if server.run is not None:
        await server.run
    return {"messages": [dump_message(message) for message in queued]}


def set_queue_mode(queue: MessageQueue, command: dict[str, Any]) -> None:
    """How the steering or follow-up queue hands its messages to the loop: all, or one."""
    if (mode := command.get("mode")) not in ("all", "one-at-a-time"):
        raise CommandError(f"{command.get('type')}: mode must be 'all' or 'one-at-a-time'")
    queue.mode = mode


def get_state(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    runtime = server.runtime
    agent, writer = runtime.agent, runtime.writer
    return without_none({
        "model": model_json(runtime.config.model), "thinkingLevel": runtime.config.thinking_level,
        "isStreaming": server.streaming, "isCompacting": server.compacting,
        "steeringMode": agent.steering.mode, "followUpMode": agent.follow_ups.mode,
        "sessionFile": str(writer.path), "sessionId": writer.header.id,
        "autoCompactionEnabled": runtime.compaction.enabled, "messageCount": len(runtime.messages),
        "pendingMessageCount": len(agent.steering) + len(agent.follow_ups),
        "sessionName": writer.tree.name})


def set_model(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    wanted = (field(command, "provider"), field(command, "modelId"))
    found = next((m for m in server.runtime.available_models if (m.provider, m.id) == wanted), None)
    if found is None:
        raise CommandError(f"Model not found: {wanted[0]}/{wanted[1]}")
    server.runtime.set_model(found)
    return model_json(found)


def cycle_model(server: RpcServer, command: dict[str, Any]) -> object:
    runtime, models = server.runtime, server.runtime.available_models
    if len(models) <= 1:
        return NULL
    now = (runtime.config.model.provider, runtime.config.model.id)
    current = next((i for i, m in enumerate(models) if (m.provider, m.id) == now), 0)
    runtime.set_model(chosen := models[(current + 1) % len(models)])
    return {"model": model_json(chosen), "thinkingLevel": runtime.config.thinking_level,
            "isScoped": False}


def set_thinking_level(server: RpcServer, command: dict[str, Any]) -> None:
    if (level := command.get("level")) not in THINKING_LEVELS:
        raise CommandError(f"set_thinking_level: level must be one of {', '.join(THINKING_LEVELS)}")
    server.runtime.set_thinking_level(level)


def cycle_thinking_level(server: RpcServer, command: dict[str, Any]) -> object:
    """Clamped to what the model allows, not refused; null for a model that does not think."""
    model, level = server.runtime.config.model, server.runtime.config.thinking_level
    if not model.reasoning:
        return NULL
    levels = supported_thinking_levels(model)
    chosen = levels[(levels.index(level) + 1) % len(levels) if level in levels else 0]
    return {"level": server.runtime.set_thinking_level(chosen)}


def set_session_name(server: RpcServer, command: dict[str, Any]) -> None:
    if not (name := field(command, "name").strip()):
        raise CommandError("Session name cannot be empty")
    server.runtime.writer.append_session_info(name)


def get_session_stats(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Pi's getSessionStats: the file's counts and usage, and how full the current context is
    (unknown from a compaction to the next reply)."""
    runtime = server.runtime
    stats = {"sessionFile": str(runtime.writer.path), "sessionId": runtime.writer.header.id,
             **session_stats(runtime.writer.tree.entries)}
    if (window := runtime.config.model.context_window) > 0:
        context = list(runtime.messages)
        used = None if runtime.usage_is_stale() else estimate_context_tokens(context).tokens
        stats["contextUsage"] = {"tokens": used, "contextWindow": window,
                                 "percent": None if used is None else used / window * 100}
    return stats


def session_stats(entries: Sequence[SessionEntry]) -> dict[str, Any]:
    """Messages, tool calls and usage over every entry of a file, as Pi counts them: each
    branch, what a compaction summarised, and the summaries' own model calls."""
    messages = [entry.message for entry in entries if isinstance(entry, MessageEntry)]
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    # in file order, as Pi adds them: a sum of floats depends on the order
    usages = [usage for entry in entries if (usage := usage_of(entry)) is not None]
    tokens = {to_camel(kind): sum(getattr(usage, kind) for usage in usages)
              for kind in ("input", "output", "cache_read", "cache_write")}
    return {"userMessages": sum(1 for m in messages if m.role == "user"),
            "assistantMessages": len(replies),
            "toolCalls": sum(1 for r in replies for b in r.content if isinstance(b, ToolCall)),
            "toolResults": sum(1 for m in messages if m.role == "toolResult"),
            "totalMessages": len(messages), "tokens": {**tokens, "total": sum(tokens.values())},
            "cost": sum(usage.cost.total for usage in usages)}


def usage_of(entry: SessionEntry) -> Usage | None:
    """What a model call recorded in this entry cost: a reply's, a summary's, a usage entry's."""
    if isinstance(entry, MessageEntry):
        return entry.message.usage if isinstance(entry.message, AssistantMessage) else None
    if isinstance(entry, UsageEntry | CompactionEntry | BranchSummaryEntry):
        return entry.usage
    return None


async def fork(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    point = session_commands.fork_point(server.runtime, field(command, "entryId"))
    forked = await server.switch(session_commands.fork(server.runtime, point))
    return {**forked, "text": session_commands.message_text(point.message)}


def switch_session(server: RpcServer, command: dict[str, Any]) -> Awaitable[dict[str, Any]]:
    """Go on in another session file, at its last entry; the current one is left as it is."""
    path = server.runtime.config.cwd / field(command, "sessionPath")
    if not path.is_file():
        raise CommandError(f"switch_session: no session file at {path}")
    return server.switch(session_commands.switch_to(server.runtime, path.resolve()))


async def compact(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    if server.streaming:
        raise CommandError("compact: the agent is running; abort or wait for agent_end first")
    result = await server.runtime.compact(optional_text(command, "customInstructions"))
    if isinstance(result, str):
        raise CommandError(result)
    return compaction_result_json(result)


async def bash(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """A person's shell command, recorded as a `bashExecution` message; during a run it is
    recorded when the run ends, never between a tool call and its result."""
    server.bash, runtime, run = AbortController(), server.runtime, server.run
    try:
        message = await session_commands.run_bash(runtime, field(command, "command"),
                                                  server.bash.signal)
    finally:
        server.bash = None

    def record(_: object = None) -> None:
        with contextlib.suppress(SessionError):  # it poisons the runtime: the next prompt says
            session_commands.record_bash(runtime, message)

    if server.streaming and run is not None:
        run.add_done_callback(record)
    else:
        session_commands.record_bash(runtime, message)
    return without_none({"output": message.output, "exitCode": message.exit_code,
                         "cancelled": message.cancelled, "truncated": message.truncated,
                         "fullOutputPath": message.full_output_path or None})


def get_commands(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Extension commands, templates and skills with Pi's SourceInfo (from the CLI: "temporary")."""
    def listed(name: str, about: str | None, source: str, path: object, where: str | None,
               base_dir: object = None) -> dict[str, Any]:
        info = without_none({"path": str(path), "source": "local", "origin": "top-level",
                             "scope": where if where in ("user", "project") else "temporary",
                             "baseDir": base_dir and str(base_dir)})
        return without_none({"name": name, "description": about, "source": source,
                             "location": where, "path": str(path), "sourceInfo": info})

    assembly, resources = server.runtime.assembly, server.runtime.assembly.resources
    return {"commands": [
        *(listed(c.name, c.description, "extension", c.source, None)
          for c in assembly.extensions.commands().values()),
        *(listed(t.name, t.description, "prompt", t.file_path, t.source)
          for t in resources.templates),
        *(listed(f"skill:{s.name}", s.description, "skill", s.file_path, s.source, s.base_dir)
          for s in resources.skills)]}


COMMANDS: dict[str, Callable[[RpcServer, dict[str, Any]], Any]] = {
    "prompt": prompt,
    "steer": lambda s, c: queue(s.runtime.steer, c),
    "follow_up": lambda s, c: queue(s.runtime.follow_up, c),
    "clear_queue": clear_queue,
    "abort": abort,
    "get_state": get_state,
    "get_messages": lambda s, c: {"messages": [dump_message(m) for m in s.runtime.messages]},
    "get_last_assistant_text": lambda s, c: {
        "text": session_commands.last_assistant_text(s.runtime)},
    "set_auto_compaction": lambda s, c: setattr(s.runtime, "compaction", replace(
        s.runtime.compaction, enabled=field(c, "enabled", bool))),
    "set_auto_retry": lambda s, c: setattr(s.runtime, "auto_retry", field(c, "enabled", bool)),
    "set_steering_mode": lambda s, c: set_queue_mode(s.runtime.agent.steering, c),
    "set_follow_up_mode": lambda s, c: set_queue_mode(s.runtime.agent.follow_ups, c),
    "get_available_models": lambda s, c: {
        "models": [model_json(m) for m in s.runtime.available_models]},
    "set_model": set_model, "cycle_model": cycle_model,
    "set_thinking_level": set_thinking_level, "cycle_thinking_level": cycle_thinking_level,
    "get_available_thinking_levels": lambda s, c: {
        "levels": list(supported_thinking_levels(s.runtime.config.model))},
    "set_session_name": set_session_name,
    "abort_retry": lambda s, c: s.runtime.abort_retry(),
    "get_session_stats": get_session_stats,
    "new_session": lambda s, c: s.switch(session_commands.new_session(
        s.runtime, optional_text(c, "parentSession"))),
    "fork": fork,
    "clone": lambda s, c: s.switch(session_commands.clone(s.runtime)),
    "switch_session": switch_session,
    "get_fork_messages": lambda s, c: {"messages": [{"entryId": entry_id, "text": text}
        for entry_id, text in session_commands.fork_points(s.runtime)]},
    "compact": compact,
    "bash": bash,
    "abort_bash": lambda s, c: s.bash.abort("aborted by the client") if s.bash else None,
    "get_entries": get_entries,
    "get_tree": lambda s, c: {"tree": tree_nodes(s.runtime.writer.tree, None, 1),
                              "leafId": s.runtime.writer.leaf_id},
    "export_html": lambda s, c: {"path": str(session_commands.export_html(
        s.runtime, optional_text(c, "outputPath")))},
    "get_commands": get_commands,
}


def run_rpc(runtime: Runtime, ui: RpcUI) -> int:
    """Serve until stdin ends; 0, or 1 when the session could not be written."""
    async def serve() -> int:
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        read_lines_in_thread(sys.stdin, lines)
        await RpcServer(runtime, ui).serve(lines)
        return 0

    return run_to_end(runtime, serve, sys.stderr)
