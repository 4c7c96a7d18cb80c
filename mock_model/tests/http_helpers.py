"""Helpers for the HTTP tests: in-process requests and SSE parsing by hand.

Parsing the bytes ourselves (instead of through an SDK) checks the wire format itself:
what `data:` lines arrive, in which chunks, and what is missing when a stream is cut off.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import httpx

from mock_model import MockModel
from mock_model.http import MockTransport

READ_TOOL: Any = {  # Any: the SDKs want their own TypedDicts here
    "type": "function",
    "function": {
        "name": "read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


@dataclass(frozen=True)
class Answer:
    """A response as received: status, headers, and the body chunk by chunk."""

    status: int
    headers: httpx.Headers
    chunks: list[bytes]

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    def json(self) -> Any:
        return json.loads(self.body)


def post(model: MockModel, path: str, body: Any = None, raw: bytes | None = None) -> Answer:
    """POST through an httpx.AsyncClient on MockTransport, keeping the chunk boundaries."""

    async def send() -> Answer:
        transport = MockTransport(model)
        async with httpx.AsyncClient(transport=transport, base_url="http://mock") as client:
            content = raw if raw is not None else json.dumps(body).encode()
            async with client.stream("POST", path, content=content) as response:
                chunks = [chunk async for chunk in response.aiter_raw()]
                return Answer(response.status_code, response.headers, chunks)

    return asyncio.run(send())


def chat_body(prompt: str = "Hello", **extra: Any) -> dict[str, Any]:
    return {"model": "mock-1", "messages": [{"role": "user", "content": prompt}], **extra}


def message_body(prompt: str = "Hello", **extra: Any) -> dict[str, Any]:
    user = {"role": "user", "content": prompt}
    return {"model": "mock-1", "max_tokens": 256, "messages": [user], **extra}


def data_lines(raw: bytes) -> list[str]:
    """The payload of every `data:` line, in order."""
    return [line[6:] for line in raw.decode().split("\n") if line.startswith("data: ")]


def openai_chunks(raw: bytes) -> list[dict[str, Any]]:
    """The JSON chunks of an OpenAI stream (the `[DONE]` marker left out)."""
    return [json.loads(line) for line in data_lines(raw) if line != "[DONE]"]


def anthropic_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) pairs of an Anthropic stream."""
    pairs = []
    for block in raw.decode().split("\n\n"):
        if block:
            name_line, data_line = block.split("\n")
            pairs.append((name_line.removeprefix("event: "), json.loads(data_line[6:])))
    return pairs
