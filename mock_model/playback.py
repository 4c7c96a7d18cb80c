"""Turn one scripted `Turn` into the event sequence a real provider would stream.

The player is a plain synchronous generator so the async model can check the abort signal
*before* asking for each next event: the partial message in an aborted terminal then holds
exactly the content that was already delivered, nothing more.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from .chunking import SplitPolicy
from .failures import ABORTED_MESSAGE, break_json, failure_message
from .messages import DoneReason, done_event, error_event, event
from .script import Part, TextPart, ThinkingPart, ToolCallPart, Turn
from .usage import apply_override, compact_json, estimate_tokens, usage_for


class TurnPlayer:
    """Plays one turn against one request, building the assistant message as it goes."""

    def __init__(
        self,
        turn: Turn,
        *,
        request_size: int,
        request_number: int,
        split: SplitPolicy,
        message: dict[str, Any],
    ) -> None:
        self.turn = turn
        self.request_size = request_size  # characters of the request as canonical JSON
        self.request_number = request_number
        self.split = split
        self.message = message
        self.breaks_arguments = turn.failure is not None and (
            turn.failure.kind == "malformed_arguments"
        )

    def events(self) -> Iterator[dict[str, Any]]:
        """`start`, then every part's start/delta/end events; no terminal event."""
        yield event("start", self.message)
        for index, part in enumerate(self.turn.parts):
            yield from self._part_events(index, part)

    def finish(self) -> dict[str, Any]:
        """The terminal event once every part has been streamed."""
        self._settle_usage()
        failure = self.turn.failure
        if failure is not None and failure.kind != "malformed_arguments":
            input_tokens = estimate_tokens(self.request_size)
            return error_event(self.message, "error", failure_message(failure, input_tokens))
        return done_event(self.message, self._done_reason())

    def abort(self) -> dict[str, Any]:
        """The terminal event when the caller aborted; streamed content is kept."""
        self._settle_usage()
        return error_event(self.message, "aborted", ABORTED_MESSAGE)

    def _done_reason(self) -> DoneReason:
        if self.turn.stop_reason == "length":
            return "length"
        return "toolUse" if self.turn.tool_calls() else "stop"

    def _settle_usage(self) -> None:
        usage = usage_for(self.request_size, self.message["content"])
        if self.turn.usage is not None:
            usage = apply_override(usage, self.turn.usage)
        self.message["usage"] = usage

    def _part_events(self, index: int, part: Part) -> Iterator[dict[str, Any]]:
        if isinstance(part, TextPart):
            yield from self._prose_events(index, "text", part.text, None)
        elif isinstance(part, ThinkingPart):
            yield from self._prose_events(index, "thinking", part.thinking, part.signature)
        else:
            yield from self._tool_call_events(index, part)

    def _prose_events(
        self, index: int, kind: str, full_text: str, signature: str | None
    ) -> Iterator[dict[str, Any]]:
        block: dict[str, Any] = {"type": kind, kind: ""}
        self.message["content"].append(block)
        yield event(f"{kind}_start", self.message, contentIndex=index)
        for piece in self.split.split(full_text):
            block[kind] += piece
            yield event(f"{kind}_delta", self.message, contentIndex=index, delta=piece)
        if signature is not None:
            block[f"{kind}Signature"] = signature
        yield event(f"{kind}_end", self.message, contentIndex=index, content=full_text)

    def _tool_call_events(self, index: int, part: ToolCallPart) -> Iterator[dict[str, Any]]:
        call_id = part.id if part.id is not None else f"call_{self.request_number}_{index}"
        block: dict[str, Any] = {"type": "toolCall", "id": call_id, "name": part.name}
        block["arguments"] = {}
        self.message["content"].append(block)
        yield event("toolcall_start", self.message, contentIndex=index)
        argument_text = compact_json(dict(part.arguments))
        if self.breaks_arguments:
            argument_text = break_json(argument_text)
        for piece in self.split.split(argument_text):
            yield event("toolcall_delta", self.message, contentIndex=index, delta=piece)
        block["arguments"] = _parse_arguments(argument_text)
        tool_call = copy.deepcopy(block)
        yield event("toolcall_end", self.message, contentIndex=index, toolCall=tool_call)


def _parse_arguments(argument_text: str) -> dict[str, Any]:
    """Parsed arguments, or {} when the text is not a JSON object."""
    try:
        parsed = json.loads(argument_text)
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
