"""Rpc commands that change or read the session: new, fork, compact, bash, export.

A new session, a fork, a clone and a switch give the server a new Runtime on another file;
the old file is left exactly as it was. A manual compaction appends one entry. A shell
command run by the client (`bash`) is recorded as a `bashExecution` message, but never in
the middle of a run, where it would land between a tool call and its result: then it is
recorded when the run has ended.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from pi.ai import AbortController
from pi.coding_agent.runtime.commands import (
    clone,
    fork,
    fork_points,
    new_session,
    record_bash,
    run_bash,
    switch_to,
)
from pi.coding_agent.messages import BashExecutionMessage
from pi.coding_agent.runtime.runtime import Compacted
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.errors import SessionError
from pi.modes.events_json import compaction_result_json, entry_lookup
from pi.modes.export_html import export_html
from pi.modes.rpc_commands import CommandError, Handler, text_field

if TYPE_CHECKING:
    from pi.modes.rpc_mode import RpcServer


async def stop_run(server: RpcServer) -> None:
    """Abort the run in progress, if any, and wait until it has ended (as Pi does)."""
    if server.streaming and server.run is not None:
        server.runtime.abort()
        await server.run


async def new_session_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    await stop_run(server)
    parent = command.get("parentSession")
    server.switch(await new_session(server.runtime, parent if isinstance(parent, str) else None))
    return {"cancelled": False}


async def fork_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    await stop_run(server)
    runtime, text = await fork(server.runtime, text_field(command, "entryId"))
    server.switch(runtime)
    return {"text": text, "cancelled": False}


async def clone_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    await stop_run(server)
    server.switch(await clone(server.runtime))
    return {"cancelled": False}


async def switch_session(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Go on in another session file, at its last entry; the current one is left as it is."""
    given = text_field(command, "sessionPath")
    path = server.runtime.config.cwd / given
    if not path.is_file():
        raise CommandError(f"switch_session: no session file at {path}")
    await stop_run(server)
    server.switch(await switch_to(server.runtime, path.resolve()))
    return {"cancelled": False}


async def get_fork_messages(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    points = fork_points(server.runtime)
    return {"messages": [{"entryId": entry_id, "text": text} for entry_id, text in points]}


async def compact_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    if server.streaming:
        raise CommandError("compact: the agent is running; abort or wait for agent_end first")
    focus = command.get("customInstructions")
    result = await server.runtime.compact(focus if isinstance(focus, str) else None)
    if not isinstance(result, Compacted):
        raise CommandError(result)
    entry = entry_lookup(server.runtime.writer.tree.by_id)(result.entry_id)
    assert entry is not None, "the runtime just wrote this compaction"
    return compaction_result_json(entry)


async def bash_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    controller = server.bash = AbortController()
    try:
        message = await run_bash(server.runtime, text_field(command, "command"),
                                 controller.signal)
    finally:
        server.bash = None
    runtime = server.runtime
    if server.streaming and server.run is not None:
        server.run.add_done_callback(lambda _: record_quietly(runtime, message))
    else:
        record_bash(runtime, message)
    result: dict[str, Any] = {"output": message.output, "exitCode": message.exit_code,
                              "cancelled": message.cancelled, "truncated": message.truncated}
    if message.full_output_path:
        result["fullOutputPath"] = message.full_output_path
    return result


def record_quietly(runtime: Runtime, message: BashExecutionMessage) -> None:
    """Record after the run; a failed write poisons the runtime and the next prompt says so."""
    with contextlib.suppress(SessionError):
        record_bash(runtime, message)


async def abort_bash(server: RpcServer, command: dict[str, Any]) -> None:
    if server.bash is not None:
        server.bash.abort("aborted by the client")


async def export_html_command(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    runtime = server.runtime
    given = command.get("outputPath")
    default = runtime.config.cwd / f"pi-session-{runtime.writer.path.stem}.html"
    target = runtime.config.cwd / given if isinstance(given, str) else default
    return {"path": str(export_html(runtime, target))}


def source_info(path: object, where: str, base_dir: object = None) -> dict[str, Any]:
    """Pi's SourceInfo: a user or project resource, or one given on the command line."""
    scope = where if where in ("user", "project") else "temporary"
    info: dict[str, Any] = {"path": str(path), "source": "local", "scope": scope,
                            "origin": "top-level"}
    if base_dir is not None:
        info["baseDir"] = str(base_dir)
    return info


async def get_commands(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Extension commands, prompt templates and skills, each with where it comes from."""
    assembly = server.runtime.assembly
    found: list[dict[str, Any]] = [
        {"name": c.name, "description": c.description, "source": "extension",
         "path": str(c.source), "sourceInfo": source_info(c.source, "path")}
        for c in assembly.extensions.commands().values()]
    found += [{"name": t.name, "description": t.description, "source": "prompt",
               "location": t.source, "path": str(t.file_path),
               "sourceInfo": source_info(t.file_path, t.source)}
              for t in assembly.resources.templates]
    found += [{"name": f"skill:{s.name}", "description": s.description, "source": "skill",
               "location": s.source, "path": str(s.file_path),
               "sourceInfo": source_info(s.file_path, s.source, s.base_dir)}
              for s in assembly.resources.skills]
    return {"commands": found}


SESSION_COMMANDS: dict[str, Handler] = {
    "new_session": new_session_command, "fork": fork_command, "clone": clone_command,
    "switch_session": switch_session,
    "get_fork_messages": get_fork_messages, "compact": compact_command,
    "bash": bash_command, "abort_bash": abort_bash, "export_html": export_html_command,
    "get_commands": get_commands,
}
