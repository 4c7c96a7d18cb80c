"""The agent loop: ask the model, run its tool calls, record everything, ask again.

It stops when a reply has no tool calls or failed, on abort, or at the turn limit (a named
error, never a hang). It reports events and returns what it added; the caller owns history."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pi.agent.events import (AgentEnd, AgentEvent, AgentStart, MessageEnd, MessageStart,
                             MessageUpdate, TurnEnd, TurnStart)
from pi.agent.tool_batch import ENDS_RUN, ToolBatch
from pi.agent.tools import ToolRegistry
from pi.ai import (AbortSignal, AgentMessage, AppMessage, AssistantMessage, Context, DoneEvent,
                   ErrorEvent, Message, Model, StreamFunction, StreamOptions, SystemMessage)
from pi.ai.transcript import initial_system_message


def llm_messages(messages: Sequence[AgentMessage]) -> tuple[Message, ...]:
    """The messages a model can read: application messages stay out of the request."""
    return tuple(m for m in messages if not isinstance(m, AppMessage))


@dataclass(frozen=True)
class LoopConfig:
    model: Model
    stream: StreamFunction
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    system_prompt: str | None = None
    options: StreamOptions = field(default_factory=StreamOptions)
    max_turns: int = 50
    # What the model reads of the transcript (Pi's convertToLlm), asked once per message as it
    # is recorded, so it must convert each message on its own.
    convert_to_llm: Callable[[Sequence[AgentMessage]], tuple[Message, ...]] = llm_messages
    # Queued user messages: steering is delivered before the next model request, follow-ups
    # only when the run would otherwise stop.
    get_steering: Callable[[], list[AgentMessage]] = list
    get_follow_ups: Callable[[], list[AgentMessage]] = list


def with_system_message(messages: Sequence[AgentMessage],
                        config: LoopConfig) -> tuple[AgentMessage, ...]:
    """The transcript led by the system prompt and tools as a system message (Pi 1.6), unless
    it already starts with one: the request carries them as messages."""
    first = initial_system_message(config.system_prompt, config.tools.specs())
    if first is None or (messages and isinstance(messages[0], SystemMessage)):
        return tuple(messages)
    return (first, *messages)


@dataclass(frozen=True)
class LoopResult:
    """The messages the run added, a named error if it was cut short, and the messages it
could not deliver before the turn limit (handed back, not lost)."""

    messages: tuple[AgentMessage, ...]
    error: str | None = None
    unsent: tuple[AgentMessage, ...] = ()


class Run:
    """The state of one run: what the model reads of the context, and what this run added.
    Each message is converted for the model once, when it is recorded, so a turn costs the same
    at turn 10 and at turn 5,000 (`convert_to_llm` converts each message on its own)."""

    def __init__(self, history: Sequence[AgentMessage], config: LoopConfig,
                 emit: Callable[[AgentEvent], None], signal: AbortSignal) -> None:
        self.config, self.emit, self.signal = config, emit, signal
        self.options = replace(config.options, signal=signal)
        self.added = list[AgentMessage]()
        self.model_view = self.for_model(with_system_message(history, config))

    def for_model(self, messages: Sequence[AgentMessage]) -> list[Message]:
        """What the model reads of `messages`, checked here once: a message of the wrong shape
        is refused before any request, and requests need not check it again."""
        return list(Context(messages=self.config.convert_to_llm(messages)).messages)

    def record(self, message: AgentMessage, started: bool = False) -> None:
        if not started:
            self.emit(MessageStart(message=message))
        self.emit(MessageEnd(message=message))
        self.model_view += self.for_model([message])
        self.added.append(message)

    async def ask_model(self) -> AssistantMessage:
        """Stream one reply, reporting its growth; the reply is recorded once complete."""
        config = self.config
        # Built without validating again: `for_model` checked every message once.
        request = Context.model_construct(messages=tuple(self.model_view))
        stream = config.stream(config.model, request, self.options)
        started = False
        async for event in stream:
            if event.type == "start":
                self.emit(MessageStart(message=event.partial))
                started = True
            elif not isinstance(event, DoneEvent | ErrorEvent):
                self.emit(MessageUpdate(message=event.partial, event=event))
        reply = await stream.result()
        self.record(reply, started)
        return reply


async def run_loop(prompts: Sequence[AgentMessage], history: Sequence[AgentMessage],
                   config: LoopConfig, emit: Callable[[AgentEvent], None],
                   signal: AbortSignal) -> LoopResult:
    """Run until the model stops asking for tools; return what the run added."""
    run = Run(history, config, emit, signal)
    tools = ToolBatch(config.tools, emit, signal, config.options.clock)
    emit(AgentStart())
    pending, error = list(prompts), None
    pending += config.get_steering()
    for turn in range(config.max_turns + 1):
        if turn == config.max_turns:
            error = f"max_turns_exceeded: the run reached its limit of {config.max_turns} turns"
            break
        emit(TurnStart())
        for message in pending:
            run.record(message)
        reply = await run.ask_model()
        results = await tools.run(reply, run.record)
        emit(TurnEnd(message=reply, tool_results=tuple(results)))
        if reply.stop_reason in ENDS_RUN:
            break
        pending = config.get_steering() or ([] if results else config.get_follow_ups())
        if not results and not pending:
            break
    emit(AgentEnd(messages=tuple(run.added)))
    return LoopResult(tuple(run.added), error, tuple(pending) if error else ())
