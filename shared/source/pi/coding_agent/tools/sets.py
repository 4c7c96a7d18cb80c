"""The coding tools of one workspace, and Pi's default selection of them."""

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


def coding_tools(workspace: Workspace, temp_dir: Path | None = None) -> list[AnyTool]:
    """All seven tools, sharing `workspace` (and so its file locks)."""
    return [ReadTool(workspace), WriteTool(workspace), EditTool(workspace),
            BashTool(workspace, temp_dir), GrepTool(workspace), FindTool(workspace),
            LsTool(workspace)]


def default_tools(workspace: Workspace, temp_dir: Path | None = None) -> list[AnyTool]:
    """Pi's default set: `read, bash, edit, write`."""
    by_name = {tool.name: tool for tool in coding_tools(workspace, temp_dir)}
    return [by_name[name] for name in DEFAULT_TOOL_NAMES]
