"""pi.coding_agent: the top layer, like Pi's pi-coding-agent: tools that work on real files.

It builds on pi.agent and pi.ai, which never import from here; the facade lists what code
outside this package uses."""

from pi.coding_agent.tools.bash import BashTool
from pi.coding_agent.tools.edit import EditTool
from pi.coding_agent.tools.read import ReadTool
from pi.coding_agent.tools.sets import coding_tools
from pi.coding_agent.tools.workspace import Workspace, WorkspaceError
from pi.coding_agent.tools.write import WriteTool

__all__ = [
    "BashTool", "EditTool", "ReadTool", "Workspace", "WorkspaceError", "WriteTool",
    "coding_tools",
]
