"""The object an extension's factory receives, and the staging behind it.

An extension is a Python file with a function `extension(api)` (or `setup(api)`). Through
`api` it registers tools, slash commands and event handlers, and reaches the person (`ui`).
Nothing it registers takes effect while the factory runs: the registrations are collected
here and committed by the loader only when the factory returned without a problem. A factory
that raises halfway, or that claims a name someone else already has, leaves nothing behind.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pi.agent.tools import AgentTool, AnyTool
from pi.coding_agent.extensions.events import EVENT_NAMES, EventName
from pi.coding_agent.extensions.ui import ExtensionUI

Handler = Callable[[Any], Any]  # sync or async; gets the event, returns an answer or None
CommandHandler = Callable[[str], Awaitable[None] | None]  # gets the text after `/name `
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9:_-]*$")


class ExtensionError(Exception):
    """A registration that cannot be accepted; the whole extension is refused."""


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    handler: CommandHandler
    source: Path


@dataclass(frozen=True)
class Extension:
    """One loaded extension: what it registered, committed all together."""

    path: Path
    tools: tuple[AnyTool, ...] = ()
    commands: tuple[Command, ...] = ()
    handlers: tuple[tuple[EventName, Handler], ...] = ()


@dataclass
class Staging:
    """What a factory registered so far, and every problem found on the way."""

    tools: list[AnyTool] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    handlers: list[tuple[EventName, Handler]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class ExtensionAPI:
    """Register tools, commands and handlers; `ui` asks the person, `cwd` is the project."""

    def __init__(self, path: Path, ui: ExtensionUI, cwd: Path,
                 taken_tools: Collection[str] = (), taken_commands: Collection[str] = ()) -> None:
        self.path, self.ui, self.cwd = path, ui, cwd
        self.staged = Staging()
        self._taken_tools, self._taken_commands = taken_tools, taken_commands

    def on(self, event: EventName, handler: Handler) -> None:
        if event not in EVENT_NAMES:
            self._refuse(f"unknown event {event!r} (known: {', '.join(EVENT_NAMES)})")
        self.staged.handlers.append((event, handler))

    def register_tool(self, tool: AnyTool) -> None:
        if not isinstance(tool, AgentTool):
            self._refuse(f"register_tool needs an AgentTool instance, got {type(tool).__name__}")
        staged = [t.name for t in self.staged.tools]
        if tool.name in self._taken_tools or tool.name in staged:
            self._refuse(f"a tool named {tool.name!r} is already registered")
        self.staged.tools.append(tool)

    def register_command(self, name: str, description: str, handler: CommandHandler) -> None:
        if not COMMAND_NAME.match(name):
            self._refuse(f"command name {name!r} must be lowercase letters, digits, - _ :")
        staged = [c.name for c in self.staged.commands]
        if name in self._taken_commands or name in staged:
            self._refuse(f"a command named /{name} is already registered")
        self.staged.commands.append(Command(name, description, handler, self.path))

    def _refuse(self, problem: str) -> NoReturn:
        """Remember the problem (so catching the error does not help) and stop the factory."""
        self.staged.problems.append(problem)
        raise ExtensionError(problem)

    def commit(self) -> Extension:
        return Extension(self.path, tuple(self.staged.tools), tuple(self.staged.commands),
                         tuple(self.staged.handlers))
