"""Rpc commands for models, thinking levels, the session's name and its numbers.

All in Pi's shapes (`docs/rpc.md`): a model is Pi's `Model` JSON, cost included; cycling
answers null when there is nothing to cycle to; a thinking level the model does not allow is
clamped, not refused. `get_session_stats` counts the messages of the current context and adds
up the usage of its replies, as Pi's `getSessionStats` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi.ai import AgentMessage, AssistantMessage, Model, ToolCall
from pi.coding_agent.messages import CodingMessage
from pi.coding_agent.runtime.config import (
    THINKING_LEVELS,
    next_in_cycle,
    same_model,
    supported_thinking_levels,
)
from pi.coding_agent.session.tokens import estimate_context_tokens
from pi.modes.rpc_commands import NULL, CommandError, Handler, text_field

if TYPE_CHECKING:
    from pi.modes.rpc_mode import RpcServer



def model_json(model: Model) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True)


async def get_available_models(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    return {"models": [model_json(model) for model in server.runtime.available_models]}


async def set_model(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    provider, model_id = text_field(command, "provider"), text_field(command, "modelId")
    found = next((m for m in server.runtime.available_models
                  if (m.provider, m.id) == (provider, model_id)), None)
    if found is None:
        raise CommandError(f"Model not found: {provider}/{model_id}")
    server.runtime.set_model(found)
    return model_json(found)


async def cycle_model(server: RpcServer, command: dict[str, Any]) -> object:
    runtime = server.runtime
    models = runtime.available_models
    if len(models) <= 1:
        return NULL
    current = next((i for i, m in enumerate(models) if same_model(m, runtime.config.model)), 0)
    chosen = models[(current + 1) % len(models)]
    runtime.set_model(chosen)
    return {"model": model_json(chosen), "thinkingLevel": runtime.config.thinking_level,
            "isScoped": False}


async def set_thinking_level(server: RpcServer, command: dict[str, Any]) -> None:
    level = command.get("level")
    if level not in THINKING_LEVELS:
        raise CommandError(f"set_thinking_level: level must be one of {', '.join(THINKING_LEVELS)}")
    server.runtime.set_thinking_level(level)


async def cycle_thinking_level(server: RpcServer, command: dict[str, Any]) -> object:
    runtime = server.runtime
    if not runtime.config.model.reasoning:
        return NULL
    levels = supported_thinking_levels(runtime.config.model)
    chosen = next_in_cycle(levels, runtime.config.thinking_level)
    return {"level": runtime.set_thinking_level(chosen)}


async def set_session_name(server: RpcServer, command: dict[str, Any]) -> None:
    name = text_field(command, "name").strip()
    if not name:
        raise CommandError("Session name cannot be empty")
    server.runtime.writer.append_session_info(name)


async def abort_retry(server: RpcServer, command: dict[str, Any]) -> None:
    server.runtime.abort_retry()


def context_usage(server: RpcServer) -> dict[str, Any] | None:
    """Pi's ContextUsage: unknown (null) right after a compaction, before a new reply."""
    runtime = server.runtime
    window = runtime.config.model.context_window
    if window <= 0:
        return None
    messages: list[AgentMessage | CodingMessage] = list(runtime.messages)
    if runtime.usage_is_stale():
        return {"tokens": None, "contextWindow": window, "percent": None}
    tokens = estimate_context_tokens(messages).tokens
    return {"tokens": tokens, "contextWindow": window, "percent": tokens / window * 100}


async def get_session_stats(server: RpcServer, command: dict[str, Any]) -> dict[str, Any]:
    runtime = server.runtime
    messages = runtime.messages
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    tokens = {key: sum(getattr(r.usage, attr) for r in replies) for key, attr in
              (("input", "input"), ("output", "output"), ("cacheRead", "cache_read"),
               ("cacheWrite", "cache_write"))}
    stats: dict[str, Any] = {
        "sessionFile": str(runtime.writer.path), "sessionId": runtime.writer.header.id,
        "userMessages": sum(1 for m in messages if m.role == "user"),
        "assistantMessages": len(replies),
        "toolCalls": sum(1 for r in replies for b in r.content if isinstance(b, ToolCall)),
        "toolResults": sum(1 for m in messages if m.role == "toolResult"),
        "totalMessages": len(messages),
        "tokens": {**tokens, "total": sum(tokens.values())},
        "cost": sum(r.usage.cost.total for r in replies),
    }
    usage = context_usage(server)
    if usage is not None:
        stats["contextUsage"] = usage
    return stats


MODEL_COMMANDS: dict[str, Handler] = {
    "get_available_models": get_available_models, "set_model": set_model,
    "cycle_model": cycle_model, "set_thinking_level": set_thinking_level,
    "cycle_thinking_level": cycle_thinking_level, "set_session_name": set_session_name,
    "abort_retry": abort_retry, "get_session_stats": get_session_stats,
}
