"""The tool contract: a pydantic model for parameters (the schema the model sees, and the check
of what it sends back); a tool that fails raises, and tool_calls.py makes that a result."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from pi.ai import AbortSignal, ImageContent, TextContent, Tool

Params = TypeVar("Params", bound=BaseModel)


@dataclass(frozen=True)
class ToolResult:
    """What a tool hands back: blocks the model reads, and details it never sees."""

    content: tuple[TextContent | ImageContent, ...]
    details: Any = None

    @classmethod
    def text(cls, text: str, details: Any = None) -> ToolResult:
        return cls((TextContent(text=text),), details)


ProgressCallback = Callable[[ToolResult], None]


class AgentTool(ABC, Generic[Params]):
    """Base class of every tool: declare the three class attributes, implement `execute`."""

    name: ClassVar[str]
    description: ClassVar[str]
    parameters: type[Params]
    # A tool that must not run at the same time as any other tool says so here (step 06).
    exclusive: ClassVar[bool] = False

    @abstractmethod
    async def execute(
        self, call_id: str, params: Params, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        """Do the work; raise to report a failure (the message becomes an error result)."""

    def spec(self) -> Tool:
        """What the model sees of this tool, and nothing more."""
        return Tool(
            name=self.name,
            description=self.description,
            parameters=self.parameters.model_json_schema(),
        )


AnyTool = AgentTool[Any]


class ToolRegistry:
    """The tools of one run, by name; a second tool with a taken name is refused."""

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: AnyTool) -> None:
        """Register `tool` under its name; a name already taken is a ValueError."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> AnyTool | None:
        return self._tools.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def specs(self) -> tuple[Tool, ...]:
        """What the model sees of every tool, in the order they were added."""
        return tuple(tool.spec() for tool in self._tools.values())
