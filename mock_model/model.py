"""MockModel: a deterministic fake LLM that plays a script as pi-ai stream events.

Everything above the model layer (agent loop, retries, compaction, sessions) is tested
against this class instead of a paid, flaky, non-deterministic provider. It follows the
provider contract strictly: every stream ends with exactly one terminal event, and problems
(an exhausted script, an abort, a crashing responder) become `error` events, never raised
exceptions, because an agent must survive them.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any

from .chunking import DEFAULT_SPLIT, SplitPolicy
from .clock import FakeClock
from .failures import ABORTED_MESSAGE, exhausted_message, responder_crashed_message
from .messages import error_event, final_message, model_id_of, new_assistant_message
from .playback import TurnPlayer
from .requests import RequestLog
from .script import ScriptError, Turn

Responder = Callable[[dict[str, Any], int], Turn]


def is_aborted(signal: object | None) -> bool:
    """Duck-typed abort check: any object with a true `aborted` attribute."""
    return bool(getattr(signal, "aborted", False))


class MockModel:
    """Answers request k with turn k of a script, or with whatever a responder returns."""

    def __init__(
        self,
        script: Sequence[Turn] | None = None,
        *,
        responder: Responder | None = None,
        split: SplitPolicy = DEFAULT_SPLIT,
        clock: FakeClock | None = None,
        api: str = "mock",
        provider: str = "mock",
    ) -> None:
        if (script is None) == (responder is None):
            raise ValueError("MockModel needs exactly one of script=... or responder=...")
        self._script = _checked_script(script) if script is not None else None
        self._responder = responder
        self.split = split
        self.clock = clock if clock is not None else FakeClock()
        self.api = api
        self.provider = provider
        # Every request as it was sent; each message is copied once (see requests.py).
        self.requests = RequestLog()
        # The turn behind each captured request (None: script exhausted or responder failed);
        # the HTTP faces need its failure kind to pick a status code before sending a byte.
        self.answered_by: list[Turn | None] = []
        # Raw JSON bodies received by `mock_model.http`, for snapshot tests of wire formats.
        self.wire_requests: list[dict[str, Any]] = []

    @property
    def remaining(self) -> int | None:
        """Script turns not yet used; None in responder mode (it never runs out)."""
        if self._script is None:
            return None
        return max(len(self._script) - len(self.requests), 0)

    async def stream(
        self, request: Mapping[str, Any], signal: object | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Yield the events answering `request`; the last one is always done or error."""
        message = self._empty_message(request)
        if is_aborted(signal):
            yield error_event(message, "aborted", ABORTED_MESSAGE)
            return
        request_size = self.requests.capture(request)
        request_number = len(self.requests)
        chosen = self._choose_turn(request, request_number)
        self.answered_by.append(chosen if isinstance(chosen, Turn) else None)
        if isinstance(chosen, str):
            yield error_event(message, "error", chosen)
            return
        if chosen.delay_ms:
            await self.clock.sleep(chosen.delay_ms)
        player = TurnPlayer(
            chosen,
            request_size=request_size,
            request_number=request_number,
            split=self.split,
            message=message,
        )
        for next_event in _until_aborted(player, signal):
            yield next_event
            await asyncio.sleep(0)

    async def complete(
        self, request: Mapping[str, Any], signal: object | None = None
    ) -> dict[str, Any]:
        """Run a whole stream and return its final message (done.message or error.error)."""
        last: dict[str, Any] = {}
        async for stream_event in self.stream(request, signal):
            last = stream_event
        return final_message(last)

    def _empty_message(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return new_assistant_message(
            api=self.api,
            provider=self.provider,
            model=model_id_of(dict(request)),
            timestamp=self.clock.now_ms(),
        )

    def _choose_turn(self, request: Mapping[str, Any], request_number: int) -> Turn | str:
        """The turn for this request, or an error message saying why there is none."""
        if self._script is not None:
            if request_number > len(self._script):
                return exhausted_message(request_number, len(self._script))
            return self._script[request_number - 1]
        assert self._responder is not None
        try:
            answer = self._responder(copy.deepcopy(dict(request)), request_number)
        except Exception as error:  # a broken responder must not break the stream contract
            return responder_crashed_message(error)
        if not isinstance(answer, Turn):
            return f"MockModel responder returned {type(answer).__name__}, expected a Turn"
        return answer


def _until_aborted(player: TurnPlayer, signal: object | None) -> Iterator[dict[str, Any]]:
    """The player's events, checking the signal before each one, then the terminal."""
    events = player.events()
    while not is_aborted(signal):
        next_event = next(events, None)
        if next_event is None:
            yield player.finish()
            return
        yield next_event
    yield player.abort()


def _checked_script(script: Sequence[Turn]) -> tuple[Turn, ...]:
    for index, item in enumerate(script):
        if not isinstance(item, Turn):
            raise ScriptError(f"turns[{index}]: expected a Turn, got {type(item).__name__}")
    return tuple(script)
