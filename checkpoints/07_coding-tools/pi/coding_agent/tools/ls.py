"""`ls`, one folder's entries: sorted ignoring case, dot files and ignored files included,
folders ending in `/`; a dangling symlink, which cannot be examined, is left out, like Pi."""

from __future__ import annotations

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.walk import listing_result
from pi.coding_agent.tools.workspace import ToolParams, Workspace


class LsParams(ToolParams):
    path: str | None = Field(None, description="Folder to list (default: workspace)")
    limit: int = Field(500, ge=1, description="Maximum number of entries")


class LsTool(AgentTool[LsParams]):
    name = "ls"
    description = ("List a folder: entries sorted case-insensitively, dot files included, "
                   "folders marked with a trailing '/'. At most 500 entries by default and 50 KB.")
    parameters = LsParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: LsParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        folder, shown = self.workspace.resolve(params.path or "."), params.path or "."
        if not folder.exists():
            raise FileNotFoundError(f"Path not found: {shown}")
        if not folder.is_dir():
            raise NotADirectoryError(f"Not a directory: {shown}")
        entries = []
        for path in sorted(folder.iterdir(), key=lambda path: (path.name.lower(), path.name)):
            if path.exists():  # a link to a folder is a folder; a dangling one is left out
                entries.append(path.name + "/" if path.is_dir() else path.name)
        if not entries:
            return ToolResult.text("(empty directory)")
        limit, note = params.limit, None
        if len(entries) > limit:
            note = (f"{limit} entries limit reached. Use limit={limit * 2} for more",
                    "entryLimitReached", limit)
        return listing_result(entries[:limit], note)
