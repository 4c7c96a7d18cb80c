"""What an extension sees: the `api` its factory gets, the events it hears, the `ui` it asks.

Registrations are staged and committed only if the factory returns without a problem."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn, Protocol, get_args

from pi.agent.tools import AgentTool, AnyTool
from pi.ai import AgentMessage, ToolResultMessage

EventName = Literal["input", "before_agent_start", "agent_start", "agent_end",
                    "turn_start", "turn_end", "tool_call", "tool_result"]
EVENT_NAMES: tuple[str, ...] = get_args(EventName)
# The loop's own events, handed to handlers as the loop emits them (pi.agent.events).
LOOP_EVENTS = ("agent_start", "agent_end", "turn_start", "turn_end")
Handler = Callable[[Any], Any]  # sync or async; gets the event, returns an answer or None
CommandHandler = Callable[[str], Awaitable[None] | None]  # gets the text after `/name `
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9:_-]*$")
NotifyLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class InputEvent:  # what the user typed, before anything else looks at it
    text: str


@dataclass(frozen=True)
class InputChange:  # answer to `input`: go on with this text instead (handlers chain)
    text: str


@dataclass(frozen=True)
class InputHandled:  # answer to `input`: the extension dealt with it; the model is not asked
    pass


@dataclass(frozen=True)
class BeforeAgentStartEvent:
    prompt: str
    system_prompt: str | None


@dataclass(frozen=True)
class AgentStartChange:  # answer to `before_agent_start`: a new system prompt, added messages
    system_prompt: str | None = None
    messages: tuple[AgentMessage, ...] = ()


@dataclass(frozen=True)
class ToolCallEvent:  # a valid call about to run; return an ArgumentChange to change `input`
    tool_call_id: str
    tool_name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class ToolResultEvent(ToolCallEvent):  # the result the model will see; return a replacement
    result: ToolResultMessage


class ExtensionUI(Protocol):
    """How an extension reaches the person: a terminal, an RPC client or a test's script."""

    async def confirm(self, title: str, message: str) -> bool: ...  # True only for a yes

    def notify(self, message: str, level: NotifyLevel = "info") -> None: ...


class ScriptedUI:
    """Answers from a script, for tests and demos; records every question and note."""

    def __init__(self, answers: Iterable[bool] = ()) -> None:
        self.answers = deque(answers)
        self.asked: list[str] = []
        self.notes: list[str] = []

    async def confirm(self, title: str, message: str) -> bool:
        self.asked.append(f"{title}: {message}")
        return self.answers.popleft() if self.answers else False

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self.notes.append(f"{level}: {message}")


class NoUI(ScriptedUI):
    """Nobody to ask (print mode): an empty script, so every answer is no and a gate stays shut."""


class ExtensionError(Exception):
    """A registration that cannot be accepted; the whole extension is refused."""


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    handler: CommandHandler
    source: Path


class ExtensionAPI:
    """Register tools, commands and handlers; `ui` asks the person, `cwd` is the project.
    Once committed, this is the loaded extension: its path and what it registered."""

    def __init__(self, path: Path, ui: ExtensionUI, cwd: Path,
                 taken_tools: Collection[str] = (), taken_commands: Collection[str] = ()) -> None:
        self.path, self.ui, self.cwd = path, ui, cwd
        self.tools: list[AnyTool] = []
        self.commands: list[Command] = []
        self.handlers: list[tuple[EventName, Handler]] = []
        self.problems: list[str] = []  # kept, so catching the ExtensionError does not help
        self._taken_tools, self._taken_commands = taken_tools, taken_commands

    def on(self, event: EventName, handler: Handler) -> None:
        if event not in EVENT_NAMES:
            self._refuse(f"unknown event {event!r} (known: {', '.join(EVENT_NAMES)})")
        self.handlers.append((event, handler))

    def register_tool(self, tool: AnyTool) -> None:
        if not isinstance(tool, AgentTool):
            self._refuse(f"register_tool needs an AgentTool instance, got {type(tool).__name__}")
        if tool.name in self._taken_tools or tool.name in [t.name for t in self.tools]:
            self._refuse(f"a tool named {tool.name!r} is already registered")
        self.tools.append(tool)

    def register_command(self, name: str, description: str, handler: CommandHandler) -> None:
        if not COMMAND_NAME.match(name):
            self._refuse(f"command name {name!r} must be lowercase letters, digits, - _ :")
        if name in self._taken_commands or name in [c.name for c in self.commands]:
            self._refuse(f"a command named /{name} is already registered")
        self.commands.append(Command(name, description, handler, self.path))

    def _refuse(self, problem: str) -> NoReturn:
        self.problems.append(problem)
        raise ExtensionError(problem)
