"""Step 13: the Runtime, the composition root: an Agent whose history is a session file.

The caller picks the session and the leaf; the path's context seeds the Agent. Every message
is appended to the session the moment it is complete, so when `prompt()` returns, the whole
run is on disk. If a write fails the runtime is poisoned: it refuses every further prompt with
the original error, because it can no longer prove that what it would do next is recorded.
Around each run it applies Pi's policies: compaction at three points, one overflow recovery,
and retry of transient failures with backoff on an injected clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pi.agent import Agent, MessageEnd
from pi.agent.state import AgentState
from pi.ai import AgentMessage, AssistantMessage, Model
from pi.coding_agent.extensions.hooks import EventRelay
from pi.coding_agent.runtime.assemble import Assembly, assemble
from pi.coding_agent.runtime.compactor import Compacted, compact_session, over_threshold
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.errors import is_context_overflow, is_transient, retry_delays
from pi.coding_agent.runtime.events import (
    AutoCompactionEnd,
    AutoCompactionStart,
    AutoRetryEnd,
    AutoRetryStart,
    RuntimeEvent,
    TurnLimitReached,
)
from pi.coding_agent.runtime.prompt_input import prepare_prompt
from pi.coding_agent.runtime.session_files import open_writer
from pi.coding_agent.session.errors import SessionError

Listener = Callable[[RuntimeEvent], None]
TURN_LIMIT_ERROR = "max_turns_exceeded"  # how the loop (step 06) words a run cut at its limit


class RuntimePoisoned(RuntimeError):
    """A session write failed earlier; reopen the runtime to go on."""


class Runtime:
    def __init__(self, config: RuntimeConfig) -> None:
        self.config = config
        self.writer = open_writer(config)
        self.assembly: Assembly = assemble(config)
        loop = replace(self.assembly.loop, before_turn=self._before_turn)
        self.agent = Agent(loop, self.writer.context().messages)  # type: ignore[arg-type]
        self.agent.subscribe(self._on_agent_event)
        self.relay = EventRelay(self.assembly.runner)  # extensions' lifecycle handlers
        self.listeners: list[Listener] = []
        self.poisoned: Exception | None = None
        self.auto_compaction, self.auto_retry = config.auto_compaction, config.auto_retry
        self._retry_aborted = False

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    @property
    def messages(self) -> tuple[AgentMessage, ...]:
        return self.agent.state.messages

    async def prompt(self, text: str) -> None:
        """One prompt, run to the end; returns only when all of it is on disk."""
        if self.poisoned is not None:
            raise RuntimePoisoned(f"the session can no longer be written: {self.poisoned}")
        prepared = await prepare_prompt(self.assembly.runner, self.assembly.resources, text,
                                        self.assembly.loop.system_prompt)
        if prepared is None:
            return
        self.agent.config = replace(self.agent.config, system_prompt=prepared.system_prompt)
        for message in prepared.extra_messages:
            self.agent.steer(message)  # queued now, delivered right after the prompt
        if self.auto_compaction and self._over_threshold():
            await self._compact("threshold")
        await self.agent.prompt(prepared.text)
        await self.relay.flush()
        await self._after_run()

    def steer(self, text: str) -> None:
        self.agent.steer(text)

    def follow_up(self, text: str) -> None:
        self.agent.follow_up(text)

    def abort(self) -> list[AgentMessage]:
        self._retry_aborted = True
        return self.agent.abort()

    def set_model(self, model: Model) -> None:
        """Switch models between runs; the session records the change."""
        self.config = replace(self.config, model=model)
        self.agent.config = replace(self.agent.config, model=model)
        self.writer.append_model_change(model.provider, model.id)

    async def compact(self, focus: str | None = None) -> Compacted | str:
        """A manual compaction (`/compact [focus]`)."""
        return await self._compact("manual", focus)

    async def flush(self) -> None:
        """Writes happen as messages complete; flushing only confirms none failed."""
        if self.poisoned is not None:
            raise RuntimePoisoned(str(self.poisoned))

    async def close(self) -> None:
        self.writer.close()

    def _emit(self, event: RuntimeEvent) -> None:
        for listener in list(self.listeners):
            listener(event)

    def _on_agent_event(self, event: object, state: AgentState) -> None:
        if isinstance(event, MessageEnd) and self.poisoned is None:
            try:
                self.writer.append_message(event.message)
            except SessionError as error:
                self.poisoned = error
                self.agent.abort()
        self.relay(event)  # type: ignore[arg-type]
        self._emit(event)  # type: ignore[arg-type]

    def _over_threshold(self) -> bool:
        """Pi's threshold rule; with no reply yet there is no usage to judge, so never."""
        if self._last_reply() is None:
            return False
        window = self.config.model.context_window
        return over_threshold(list(self.messages), window, self.config.compaction)

    async def _before_turn(self, context: list[AgentMessage]) -> list[AgentMessage] | None:
        if not self.auto_compaction or not self._over_threshold() or self.poisoned:
            return None
        result = await self._compact("threshold", reseed=False)
        if not isinstance(result, Compacted):  # a failed summary recorded nothing: go on as is
            return None
        return list(self.writer.context().messages)  # type: ignore[arg-type]

    async def _compact(self, reason: str, focus: str | None = None, reseed: bool = True,
                       will_retry: bool = False) -> Compacted | str:
        self._emit(AutoCompactionStart(reason=reason))  # type: ignore[arg-type]
        result = await compact_session(self.writer, self.agent.config, self.config.compaction,
                                       focus)
        if isinstance(result, Compacted):
            self._emit(AutoCompactionEnd(entry_id=result.entry_id, will_retry=will_retry,
                                         tokens_before=result.tokens_before))
        else:
            self._emit(AutoCompactionEnd(entry_id=None, tokens_before=0, will_retry=False,
                                         error_message=result))
            return result
        if reseed and not self.agent.state.is_running:
            self.agent.replace_messages(self.writer.context().messages)  # type: ignore[arg-type]
        return result

    def _last_reply(self) -> AssistantMessage | None:
        replies = [m for m in self.messages if isinstance(m, AssistantMessage)]
        return replies[-1] if replies else None

    async def _after_run(self) -> None:
        """Pi's checks when a run ends: retry first, then overflow, then the threshold."""
        self._report_turn_limit()
        self.agent.replace_messages(self.writer.context().messages)  # type: ignore[arg-type]
        last, window = self._last_reply(), self.config.model.context_window
        if last is None or self.poisoned is not None:
            return
        if self.auto_retry and is_transient(last, window):
            await self._retry(last)
        elif self.auto_compaction and is_context_overflow(last, window):
            if isinstance(await self._compact("overflow", will_retry=True), Compacted):
                await self.agent.resume()
                self.agent.replace_messages(self.writer.context().messages)  # type: ignore[arg-type]
        elif self.auto_compaction and self._over_threshold():
            await self._compact("threshold")

    def _report_turn_limit(self) -> None:
        """The loop ends a run at `max_turns` with an error, not a reply: announce it."""
        error = self.agent.state.last_error or ""
        if error.startswith(TURN_LIMIT_ERROR):
            self._emit(TurnLimitReached(max_turns=self.agent.config.max_turns, message=error))

    async def _retry(self, failed: AssistantMessage) -> None:
        delays = retry_delays(self.config.retry_base_ms, self.config.max_retries)
        self._retry_aborted = False
        for attempt, delay in enumerate(delays, start=1):
            self._emit(AutoRetryStart(attempt=attempt, max_attempts=len(delays), delay_ms=delay,
                                      error_message=failed.error_message or ""))
            await self.config.sleep(delay)
            if self._retry_aborted:
                self._emit(AutoRetryEnd(success=False, attempt=attempt, final_error="aborted"))
                return
            await self.agent.resume()
            self.agent.replace_messages(self.writer.context().messages)  # type: ignore[arg-type]
            last = self._last_reply()
            if last is not None and not is_transient(last, self.config.model.context_window):
                self._emit(AutoRetryEnd(success=last.stop_reason != "error", attempt=attempt,
                                        final_error=last.error_message))
                return
            failed = last or failed
        self._emit(AutoRetryEnd(success=False, attempt=len(delays),
                                final_error=failed.error_message))
