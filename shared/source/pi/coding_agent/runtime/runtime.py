"""The Runtime: an Agent whose history is a session file, written as each message completes;
a failed write poisons it. Around each run: Pi's compaction, overflow recovery and retry."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from pi.agent import Agent, AgentEvent, AgentState, MessageEnd
from pi.ai import (AgentMessage, AssistantMessage, ImageContent, Model, SystemMessage,
                   TextContent, UserMessage)
from pi.coding_agent.compaction.compact import CompactionPreparation, compact, prepare_compaction
from pi.coding_agent.compaction.thresholds import should_compact
from pi.coding_agent.compaction.utils import SummaryError
from pi.coding_agent.extensions.runner import EventRelay, prepare_prompt
from pi.coding_agent.messages import CodingMessage
from pi.coding_agent.resources.system_prompt import declared_prompt
from pi.coding_agent.runtime.config import (RuntimeConfig, assemble, check_images,
                                           clamp_thinking_level, open_writer, summary_retry)
from pi.coding_agent.runtime.errors import is_context_overflow, is_transient, retry_delays
from pi.coding_agent.runtime.events import (AutoRetryEnd, AutoRetryStart, CompactionEnd,
                                            CompactionReason, CompactionStart, RuntimeEvent,
                                            TurnLimitReached, recovery_failed)
from pi.coding_agent.session.entries import CompactionEntry, MessageEntry, SessionError
from pi.coding_agent.session.tokens import ENDED_BADLY, estimate_context_tokens

Listener = Callable[[RuntimeEvent], None]
TURN_LIMIT_ERROR = "max_turns_exceeded"  # how the loop (step 06) words a run cut at its limit
FAILURE_LEAD = {"manual": "Compaction failed", "threshold": "Auto-compaction failed",  # Pi's words
                "overflow": "Context overflow recovery failed"}


class RuntimePoisoned(RuntimeError):
    """A session write failed earlier; reopen the runtime to go on."""


class Runtime:
    def __init__(self, config: RuntimeConfig) -> None:
        self.writer = open_writer(config)
        opened = self.writer.context()
        if opened.messages:  # as Pi resumes: the thinking level the session last set
            config = replace(config, thinking_level=clamp_thinking_level(
                config.model, opened.thinking_level))
        self.config = config
        self.assembly = assemble(config)
        self.forced_prompt: str | None = None  # an extension's prompt for one run: sent only
        # The prompt reaches the model from the transcript, as the session declares it.
        loop = replace(self.assembly.loop, before_turn=self._before_turn, system_prompt=None)
        self.agent = Agent(loop, self._session_context())
        self.agent.subscribe(self._on_agent_event)
        self.relay = EventRelay(self.assembly.runner)  # extensions' lifecycle handlers
        self.listeners: list[Listener] = []
        self.compaction, self.auto_retry = config.compaction, config.auto_retry  # RPC switches
        self._retry_aborted = False
        self._recovering = False  # Pi: one compact-and-retry, until a prompt or a good reply

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    @property
    def messages(self) -> tuple[AgentMessage, ...]:
        return self.agent.state.messages

    @property
    def poisoned(self) -> SessionError | None:
        """The failed write after which the session takes no more: then nothing new starts."""
        return self.writer.failure

    async def prompt(self, text: str, images: tuple[ImageContent, ...] = ()) -> None:
        """One prompt, run to the end. Every entry it made is on disk when it returns, or the
        runtime is poisoned (a write failed): then the next prompt raises RuntimePoisoned."""
        # [exercise 13-prompt]
        if self.poisoned is not None:
            raise RuntimePoisoned(f"the session can no longer be written: {self.poisoned}")
        check_images(self.config.model, images)
        resources = self.assembly.resources
        prepared = await prepare_prompt(self.assembly.runner, text, resources.system_prompt,
                                        resources.expand_input)
        if prepared is None:
            return
        if self._over_threshold():
            await self.compact(reason="threshold")
        if prepared.system_prompt != resources.system_prompt:  # an extension changed it
            self.forced_prompt = prepared.system_prompt
        try:
            self.reseed()  # with a forced prompt, the agent reads the projection from here on
            await self.agent.prompt(*self.declarations(), self.user_message(prepared.text, images),
                                    *prepared.extra_messages)
            await self.relay.flush()
            await self._after_run()
        finally:
            self.forced_prompt = None
            self.reseed()
        # [end]

    def declarations(self) -> list[SystemMessage]:
        """What the session records before a prompt to declare the current prompt sections and
        tools (Pi 1.6): nothing if it already does, or if an extension replaced the prompt."""
        if self.forced_prompt is not None:
            return []
        loop = self.assembly.loop
        declared = declared_prompt(self.writer.context().messages, self.assembly.resources.sections,
                                   loop.tools.specs(), loop.options.clock())
        return [declared] if declared else []

    def steer(self, text: str, images: tuple[ImageContent, ...] = ()) -> None:
        self.agent.steer(self.user_message(text, images))

    def follow_up(self, text: str, images: tuple[ImageContent, ...] = ()) -> None:
        self.agent.follow_up(self.user_message(text, images))

    def user_message(self, text: str, images: tuple[ImageContent, ...]) -> UserMessage:
        """Pi's user content: the text alone, or with images the text block first, then them."""
        check_images(self.config.model, images)
        content = (TextContent(text=text), *images) if images else text
        return UserMessage(content=content, timestamp=self.agent.config.options.clock())

    def abort(self) -> list[AgentMessage]:
        self._retry_aborted = True
        return self.agent.abort()

    def abort_retry(self) -> None:
        """Stop a retry waiting for its delay; the run in progress is left alone."""
        self._retry_aborted = True

    @property
    def available_models(self) -> tuple[Model, ...]:
        return self.config.models or (self.config.model,)

    def set_model(self, model: Model) -> None:
        """Switch models between runs (recorded), clamping the thinking level to the new one's."""
        self.config = replace(self.config, model=model)
        self.agent.config = replace(self.agent.config, model=model)
        self.writer.append_model_change(model.provider, model.id)
        self.set_thinking_level(self.config.thinking_level)

    def set_thinking_level(self, level: str) -> str:
        """Set the level (clamped to the model's); recorded only when it changes, as in Pi."""
        effective = clamp_thinking_level(self.config.model, level)
        if effective != self.config.thinking_level:
            self.config = replace(self.config, thinking_level=effective)
            self.writer.append_thinking_level_change(effective)
        return effective

    async def flush(self) -> None:
        """Writes happen as messages complete; flushing only confirms none failed."""
        if self.poisoned is not None:
            raise RuntimePoisoned(str(self.poisoned))

    async def close(self) -> None:
        self.writer.close()

    def _emit(self, event: RuntimeEvent) -> None:
        for listener in list(self.listeners):
            listener(event)

    def _on_agent_event(self, event: AgentEvent, state: AgentState) -> None:
        message = event.message if isinstance(event, MessageEnd) else None
        if message is not None and self.poisoned is None:
            try:
                self.writer.append_message(message)
            except SessionError:  # now `poisoned`: the run stops here
                self.agent.abort()
        if isinstance(message, UserMessage) or (isinstance(message, AssistantMessage) and
                                                message.stop_reason not in ("error", "length")):
            self._recovering = False  # a prompt, or a reply that ended well: Pi may recover again
        self.relay(event)
        self._emit(event)

    def _over_threshold(self) -> bool:
        """Pi's threshold rule, judged only by usage measured on the context as it is now."""
        messages: Sequence[AgentMessage | CodingMessage] = self.messages
        if self.usage_is_stale() or not any(isinstance(m, AssistantMessage) for m in messages):
            return False
        tokens = estimate_context_tokens(messages).tokens
        return should_compact(tokens, self.config.model.context_window, self.compaction)

    def usage_is_stale(self) -> bool:
        """Pi's rule: after a compaction only a reply recorded since measures the context (a kept
        reply has the old, larger usage); the walk back from the leaf stops at the first answer."""
        tree, leaf = self.writer.tree, self.writer.leaf_id
        entry = tree.by_id[leaf] if leaf is not None else None
        for _ in range(len(tree.by_id)):  # bounded: a chain of parents that loops ends too
            if entry is None:
                return False
            if entry.type == "compaction":
                return True
            reply = entry.message if isinstance(entry, MessageEntry) else None
            if isinstance(reply, AssistantMessage) and reply.stop_reason not in ENDED_BADLY:
                return False
            entry = tree.parent_of(entry)
        return False

    async def _before_turn(self) -> list[AgentMessage] | None:
        if not self._over_threshold() or self.poisoned:
            return None
        compacted = isinstance(await self.compact(reason="threshold"), CompactionEntry)
        return self._session_context() if compacted else None  # a failed summary changed nothing

    async def compact(self, focus: str | None = None, reason: CompactionReason = "manual",
                      will_retry: bool = False) -> CompactionEntry | str:
        """`/compact [focus]`, or a policy's: the new entry, or why nothing was recorded."""
        prep = self._preparation()
        if isinstance(prep, str) and reason != "manual":  # Pi: a policy with nothing to do is quiet
            return prep
        self._emit(CompactionStart(reason=reason))
        result = prep if isinstance(prep, str) else await self._summarise(prep, focus)
        if isinstance(result, str):
            self._emit(CompactionEnd(reason=reason, entry=None, will_retry=False,
                                     error_message=f"{FAILURE_LEAD[reason]}: {result}"))
            return result
        self._emit(CompactionEnd(reason=reason, entry=result, will_retry=will_retry))
        if not self.agent.state.is_running:  # between turns, before_turn hands the loop the context
            self.reseed()
        return result

    def _preparation(self) -> CompactionPreparation | str:
        path = self.writer.leaf_path()
        prep = prepare_compaction(path, self.compaction)
        if prep is not None:
            return prep
        ended = bool(path) and isinstance(path[-1], CompactionEntry)  # Pi 1.6 names why
        return "Already compacted" if ended else "Nothing to compact (session too small)"

    async def _summarise(self, prep: CompactionPreparation, focus: str | None) -> (
            CompactionEntry | str):
        loop = self.agent.config
        retry = summary_retry(self.config) if self.auto_retry else None
        result = await compact(prep, loop.model, loop.stream, focus, loop.options, retry=retry)
        if isinstance(result, SummaryError):
            return result.text
        entry_id = self.writer.append_compaction(result.summary, result.first_kept_entry_id,
                                                 result.tokens_before, result.details,
                                                 from_hook=False, usage=result.usage)
        entry = self.writer.tree.by_id[entry_id]
        assert isinstance(entry, CompactionEntry), "append_compaction just wrote this entry"
        return entry

    def _session_context(self) -> list[AgentMessage]:
        """The session's context for the leaf; with an extension's prompt, Pi's projection."""
        messages: list[AgentMessage] = list(self.writer.context().messages)  # type: ignore[arg-type]
        if self.forced_prompt is None:
            return messages
        tools = tuple(self.assembly.loop.tools.specs()) or None
        head = SystemMessage(content=self.forced_prompt, tools_added=tools, timestamp=0)
        return [head, *(m for m in messages if not isinstance(m, SystemMessage))]

    def reseed(self) -> None:
        """The Agent's transcript is the session's context again (after a compaction, a failed
        write, or entries the Agent did not record)."""
        self.agent.replace_messages(self._session_context())

    def _last_reply(self) -> AssistantMessage | None:
        return next((m for m in reversed(self.messages) if isinstance(m, AssistantMessage)), None)

    async def _after_run(self) -> None:
        """Pi's checks when a run ends: retry first, then overflow, then the threshold."""
        self._report_turn_limit()
        self.reseed()
        last, model = self._last_reply(), self.config.model
        if last is None or self.poisoned is not None:
            return
        overflow = is_context_overflow(last, model.context_window)
        # Pi's isRecoverableLength: a reply cut below the model's own limit, so by the context
        cut_short = last.stop_reason == "length" and last.usage.output < model.max_tokens
        if self.auto_retry and is_transient(last, model.context_window):
            await self._retry(last)
        elif self.compaction.enabled and (overflow or cut_short):
            resume = last.stop_reason != "stop"  # Pi: a finished reply is compacted, not resumed
            if resume and self._recovering:  # Pi tries once: the resumed run failed the same way
                self._emit(recovery_failed(overflow))
                return
            self._recovering = resume
            if resume and self.writer.leaf_id is not None:  # Pi omits the failed reply for good
                self.writer.append_context_edit(self.writer.leaf_id, None)
            compacted = await self.compact(reason="overflow", will_retry=resume)
            if isinstance(compacted, CompactionEntry) and resume:
                await self.agent.resume()
                await self._after_run()  # Pi checks the retried run as any other
        elif self._over_threshold():
            await self.compact(reason="threshold")

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
            self.reseed()
            last = self._last_reply()
            if last is not None and not is_transient(last, self.config.model.context_window):
                self._emit(AutoRetryEnd(success=last.stop_reason != "error", attempt=attempt,
                                        final_error=last.error_message))
                return
            failed = last or failed
        self._emit(AutoRetryEnd(success=False, attempt=len(delays),
                                final_error=failed.error_message))
