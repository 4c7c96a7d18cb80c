"""Shared test helpers: run a stream to completion and build small requests.

Tests are synchronous and drive the async model with `asyncio.run`, so every helper here
returns plain lists of events that assertions can inspect afterwards.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mock_model import MockModel, SplitPolicy, Turn


@dataclass
class AbortFlag:
    """The smallest object the model accepts as an abort signal."""

    aborted: bool = False
    reason: str | None = None


def user_request(prompt: str = "Hello", model: str = "mock-1") -> dict[str, Any]:
    return {
        "model": model,
        "systemPrompt": "You are a test.",
        "messages": [{"role": "user", "content": prompt, "timestamp": 1}],
    }


def collect(
    model: MockModel, request: Mapping[str, Any] | None = None, signal: object | None = None
) -> list[dict[str, Any]]:
    """All events of one stream."""

    async def gather() -> list[dict[str, Any]]:
        return [event async for event in model.stream(request or user_request(), signal)]

    return asyncio.run(gather())


def collect_with_receipts(model: MockModel) -> tuple[list[dict[str, Any]], list[str]]:
    """All events, plus each event's JSON taken at the moment it arrived."""

    async def gather() -> tuple[list[dict[str, Any]], list[str]]:
        events: list[dict[str, Any]] = []
        receipts: list[str] = []
        async for event in model.stream(user_request()):
            events.append(event)
            receipts.append(json.dumps(event, sort_keys=True))
        return events, receipts

    return asyncio.run(gather())


def play(turn: Turn, split: SplitPolicy | None = None) -> list[dict[str, Any]]:
    """Events of a one-turn script answering the default request."""
    model = MockModel([turn]) if split is None else MockModel([turn], split=split)
    return collect(model)


def collect_aborting_after(
    model: MockModel, event_count: int, request: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Consume a stream, setting the abort flag once `event_count` events have arrived."""
    flag = AbortFlag()

    async def gather() -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        async for event in model.stream(request or user_request(), flag):
            events.append(event)
            if len(events) == event_count:
                flag.aborted, flag.reason = True, "test"
        return events

    return asyncio.run(gather())


def final(events: list[dict[str, Any]]) -> dict[str, Any]:
    last = events[-1]
    message = last["message"] if last["type"] == "done" else last["error"]
    assert isinstance(message, dict)
    return message
