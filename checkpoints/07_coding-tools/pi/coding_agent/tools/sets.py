"""The coding tools of one workspace, and Pi's two standard selections of them:
`read, bash, edit, write` by default, and `read, grep, find, ls`, which change nothing."""

from __future__ import annotations

from pathlib import Path

from pi.agent.tools import AnyTool
from pi.coding_agent.tools.bash import BashTool
from pi.coding_agent.tools.edit import EditTool
from pi.coding_agent.tools.find import FindTool
from pi.coding_agent.tools.grep import GrepTool
from pi.coding_agent.tools.ls import LsTool
from pi.coding_agent.tools.read import ReadTool
from pi.coding_agent.tools.workspace import Workspace
from pi.coding_agent.tools.write import WriteTool

DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")
READ_ONLY_TOOL_NAMES = ("read", "grep", "find", "ls")


def coding_tools(workspace: Workspace, temp_dir: Path | None = None) -> list[AnyTool]:
    """All seven tools, sharing `workspace` (and so its file locks)."""
    return [ReadTool(workspace), WriteTool(workspace), EditTool(workspace),
            BashTool(workspace, temp_dir), GrepTool(workspace), FindTool(workspace),
            LsTool(workspace)]


def select_tools(workspace: Workspace, names: tuple[str, ...], temp_dir: Path | None = None) -> (
    list[AnyTool]
):
    """The named tools, in the order named; an unknown name is a mistake worth raising for."""
    by_name = {tool.name: tool for tool in coding_tools(workspace, temp_dir)}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise ValueError(f"unknown tool(s): {', '.join(unknown)} (known: {', '.join(by_name)})")
    return [by_name[name] for name in names]


def default_tools(workspace: Workspace, temp_dir: Path | None = None) -> list[AnyTool]:
    return select_tools(workspace, DEFAULT_TOOL_NAMES, temp_dir)


def read_only_tools(workspace: Workspace) -> list[AnyTool]:
    return select_tools(workspace, READ_ONLY_TOOL_NAMES)
