"""Watch one complete agent run before building any part of it.

An agent is a loop: send the conversation to a model, run the tools it asks for, send the
results back, and stop when the model answers without asking for a tool. `observe_run` is that
loop written on plain JSON dicts, as naive as possible, so that the whole idea fits on one
screen. Every later step replaces one of its lines with a real part: typed messages (01), event
streams (02), the model boundary (03), tools (05) and the agent loop (06).

`format_timeline` is what stays: it shows what crossed the boundary, in order.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Protocol

JsonDict = dict[str, Any]
ToolFunction = Callable[[JsonDict], str]


class StreamingModel(Protocol):
    """Anything that turns a request dict into a stream of event dicts (the MockModel does)."""

    def stream(self, request: JsonDict, signal: object | None = None) -> AsyncIterator[JsonDict]:
        ...


async def observe_run(
    model: StreamingModel,
    prompt: str,
    tools: Mapping[str, ToolFunction],
    max_turns: int = 8,
) -> list[JsonDict]:
    """Run prompt → model → tools → model … and return every message, in order."""
    messages: list[JsonDict] = [{"role": "user", "content": prompt, "timestamp": 0}]
    for _ in range(max_turns):
        reply = await final_message(model.stream({"model": "mock-1", "messages": messages}))
        messages.append(reply)
        calls = [block for block in reply["content"] if block["type"] == "toolCall"]
        if not calls:
            break
        messages.extend(run_tool(call, tools) for call in calls)
    return messages


async def final_message(events: AsyncIterator[JsonDict]) -> JsonDict:
    """The assistant message a stream ends with: `done` carries it, `error` carries it too."""
    async for event in events:
        if event["type"] == "done":
            message: JsonDict = event["message"]
            return message
        if event["type"] == "error":
            failed: JsonDict = event["error"]
            return failed
    raise RuntimeError("the stream ended without a done or error event")


def run_tool(call: JsonDict, tools: Mapping[str, ToolFunction]) -> JsonDict:
    """One tool call in, exactly one tool result out (`timestamp` 0), even when the tool is
    unknown (`Tool NAME not found`) or raises (its text): then `isError` is true."""
    tool = tools.get(call["name"])
    try:
        if tool is None:
            raise LookupError(f"Tool {call['name']} not found")
        text, is_error = tool(call["arguments"]), False
    except Exception as error:
        text, is_error = str(error), True
    return {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
        "timestamp": 0,
    }


def format_timeline(messages: list[JsonDict]) -> list[str]:
    """One line per message part: who spoke, and what they said or asked for."""
    lines: list[str] = []
    for message in messages:
        for role, text in describe(message):
            lines.append(f"{len(lines) + 1:>3}  {role:<11} {text}")
    return lines


def describe(message: JsonDict) -> list[tuple[str, str]]:
    """(role, text) rows, one per part in order: string content or a text block `shorten`ed (a
    thinking block's role gets a `~`), a tool call as `calls NAME ARGS  [ID]` (ARGS: JSON with
    sorted keys); a tool result's rows read `ok TEXT  [CALL_ID]` or `error …`; an assistant
    message ends with a `(stop: REASON)` row."""
    role = message["role"]
    content = message["content"]
    if isinstance(content, str):
        return [(role, shorten(content))]
    parts: list[tuple[str, str]] = []
    for block in content:
        if block["type"] == "toolCall":
            arguments = json.dumps(block["arguments"], sort_keys=True)
            parts.append((role, f"calls {block['name']} {arguments}  [{block['id']}]"))
        elif block["type"] in ("text", "thinking"):
            label = role if block["type"] == "text" else f"{role}~"
            parts.append((label, shorten(block[block["type"]])))
    if role == "toolResult":
        status = "error" if message["isError"] else "ok"
        parts = [(role, f"{status} {text}  [{message['toolCallId']}]") for _, text in parts]
    if role == "assistant":
        parts.append((role, f"(stop: {message['stopReason']})"))
    return parts


def shorten(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
