"""The coding tools of one workspace: Pi's default set (its `createCodingTools`)."""

from __future__ import annotations

from pathlib import Path

from pi.agent.tools import AnyTool
from pi.coding_agent.tools.bash import BashTool
from pi.coding_agent.tools.edit import EditTool
from pi.coding_agent.tools.read import ReadTool
from pi.coding_agent.tools.workspace import Workspace
from pi.coding_agent.tools.write import WriteTool

DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")


def coding_tools(workspace: Workspace, temp_dir: Path | None = None) -> list[AnyTool]:
    """`read, bash, edit, write`, all on one `workspace`. Pi also offers
    grep, find and ls behind `--tools`; the course leaves them out (docs/divergences.md)."""
    return [ReadTool(workspace), BashTool(workspace, temp_dir), EditTool(workspace),
            WriteTool(workspace)]
