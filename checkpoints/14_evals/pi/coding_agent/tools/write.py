"""`write`, a whole file at once: created with its folders, or replaced; the reply names it."""

from __future__ import annotations

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.workspace import ToolParams, Workspace, atomic_write


class WriteParams(ToolParams):
    path: str = Field(description="Path of the file to write, relative to the workspace")
    content: str = Field(description="The complete new content of the file")


class WriteTool(AgentTool[WriteParams]):
    name = "write"
    description = ("Write a file in the workspace: creates it (and missing parent folders) or "
                   "replaces its whole content. Use edit to change part of an existing file.")
    parameters = WriteParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(self, call_id: str, params: WriteParams, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        path = self.workspace.resolve(params.path)
        shown = params.path.removeprefix("@")
        if path.is_dir():
            raise IsADirectoryError(f"Not a file: {shown} is a directory")
        data = params.content.encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
        return ToolResult.text(f"Successfully wrote to {shown}")
