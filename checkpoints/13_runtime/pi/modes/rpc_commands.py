"""Rpc commands that prompt, steer, stop and report, in Pi's shapes.

Each handler gets the server and the command dict and returns the response's `data` (None
for none), or raises CommandError with the text of the error response. Field names are Pi's
(`streamingBehavior`, `followUpMode`, …). One difference: `abort` answers with the messages
that were still queued (`{"messages": [...]}`), which the Agent hands back so nothing a person
typed is lost; Pi's abort answers with no data and drops them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pi.ai import ImageContent, dump_message
from pi.coding_agent.runtime.commands import last_assistant_text
from pi.coding_agent.runtime.runtime import RuntimePoisoned

if TYPE_CHECKING:
    from pi.modes.rpc_mode import RpcServer

Handler = Callable[["RpcServer", dict[str, Any]], Awaitable[Any]]
BUSY = ("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') "
        "to queue the message.")


NULL = ("null",)  # a handler's answer meaning `"data": null` (None means no data at all)


class CommandError(Exception):
    """A command that cannot be carried out; the text goes into the error response."""


def text_field(command: dict[str, Any], name: str) -> str:
    value = command.get(name)
    if not isinstance(value, str):
        raise CommandError(f"{command.get('type')}: missing string field {name!r}")
    return value


def bool_field(command: dict[str, Any], name: str) -> bool:
    value = command.get(name)
    if not isinstance(value, bool):
        raise CommandError(f"{command.get('type')}: field {name!r} must be true or false")
    return value


def images_field(command: dict[str, Any]) -> tuple[ImageContent, ...]:
    """Pi's optional `images`: ImageContent blocks ({type: "image", data, mimeType})."""
    given = command.get("images")
    if given is None:
        return ()
    if not isinstance(given, list):
        raise CommandError(f"{command.get('type')}: field 'images' must be a list")
    try:
        return tuple(ImageContent.model_validate(image) for image in given)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise CommandError(f"{command.get('type')}: images: {where}: {problem['msg']}") from None


async def prompt(server: RpcServer, command: dict[str, Any]) -> None:
    text, images = text_field(command, "message"), images_field(command)
    server.runtime.check_images(images)
    if server.streaming:
        behaviour = command.get("streamingBehavior")
        if behaviour == "steer":
            server.runtime.steer(text, images)
        elif behaviour == "followUp":
            server.runtime.follow_up(text, images)
        else:
            raise CommandError(BUSY)
        return
    if server.runtime.poisoned is not None:
        raise RuntimePoisoned(f"the session can no longer be written: {server.runtime.poisoned}")
    server.start_prompt(text, command.get("id"), images)


async def steer(server: RpcServer, command: dict[str, Any]) -> None:
    server.runtime.steer(text_field(command, "message"), images_field(command))


async def follow_up(server: RpcServer, command: dict[str, Any]) -> None:
    server.runtime.follow_up(text_field(command, "message"), images_field(command))


async def abort(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    """Stop the run, wait until it has ended, and hand the queued messages back."""
    queued = server.runtime.abort()
    if server.run is not None:
        await server.run
    return {"messages": [dump_message(message) for message in queued]}


def set_mode(which: str) -> Handler:
    async def handler(server: RpcServer, command: dict[str, Any]) -> None:
        mode = command.get("mode")
        if mode not in ("all", "one-at-a-time"):
            raise CommandError(f"{command.get('type')}: mode must be 'all' or 'one-at-a-time'")
        queue = getattr(server.runtime.agent, which)
        queue.mode = mode

    return handler


async def set_auto_compaction(server: RpcServer, command: dict[str, Any]) -> None:
    server.runtime.auto_compaction = bool_field(command, "enabled")


async def set_auto_retry(server: RpcServer, command: dict[str, Any]) -> None:
    server.runtime.auto_retry = bool_field(command, "enabled")


async def get_state(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    runtime = server.runtime
    agent, writer = runtime.agent, runtime.writer
    state: dict[str, Any] = {
        "model": runtime.config.model.model_dump(mode="json", by_alias=True),
        "thinkingLevel": runtime.config.thinking_level,
        "isStreaming": server.streaming, "isCompacting": server.compacting,
        "steeringMode": agent.steering.mode, "followUpMode": agent.follow_ups.mode,
        "sessionFile": str(writer.path), "sessionId": writer.header.id,
        "autoCompactionEnabled": runtime.auto_compaction,
        "messageCount": len(runtime.messages),
        "pendingMessageCount": len(agent.steering) + len(agent.follow_ups),
    }
    if writer.tree.name is not None:
        state["sessionName"] = writer.tree.name
    return state


async def get_messages(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [dump_message(message) for message in server.runtime.messages]}


async def get_last_assistant_text(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    return {"text": last_assistant_text(server.runtime)}


CORE_COMMANDS: dict[str, Handler] = {
    "prompt": prompt, "steer": steer, "follow_up": follow_up, "abort": abort,
    "get_state": get_state, "get_messages": get_messages,
    "get_last_assistant_text": get_last_assistant_text,
    "set_auto_compaction": set_auto_compaction, "set_auto_retry": set_auto_retry,
    "set_steering_mode": set_mode("steering"), "set_follow_up_mode": set_mode("follow_ups"),
}
