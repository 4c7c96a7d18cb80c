"""Step 01 demo: a message as real Pi stores it, parsed, used, and written back unchanged."""

import json

from pi.ai import AssistantMessage, ProtocolError, ToolCall, dump_message, parse_message

STORED = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "I'll look at the file."},
        {"type": "toolCall", "id": "toolu_01", "name": "read", "arguments": {"path": "app.py"}},
    ],
    "api": "anthropic-messages",
    "provider": "anthropic",
    "model": "claude-sonnet-4-5",
    "usage": {
        "input": 1200, "output": 40, "cacheRead": 0, "cacheWrite": 0,
        "cost": {"input": 0.0036, "output": 0.0006, "cacheRead": 0, "cacheWrite": 0,
                 "total": 0.0042},
    },
    "stopReason": "toolUse",
    "timestamp": 1767225600000,
}


def main() -> None:
    message = parse_message(STORED)
    assert isinstance(message, AssistantMessage)
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    print(f"parsed: {type(message).__name__}, stop_reason={message.stop_reason}")
    print(f"tool calls: {[(c.name, c.arguments) for c in calls]}")
    print(f"usage: input={message.usage.input} output={message.usage.output}"
          f" totalTokens={message.usage.total_tokens} (absent in this older file)")
    print(f"written back unchanged: {dump_message(message) == STORED}")
    print(json.dumps(dump_message(message), sort_keys=True)[:72] + "…")
    broken = {**STORED, "stopReason": "finished"}
    try:
        parse_message(broken, "session.jsonl:7")
    except ProtocolError as error:
        print(f"refused: {error}")


if __name__ == "__main__":
    main()
