"""`ls`, one folder's entries: sorted ignoring case, dot files and ignored files included.

Folders end in `/`; entries that cannot be examined (a dangling symlink) are left out, like Pi.
"""

from __future__ import annotations

import os
import stat

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.truncate import DEFAULT_MAX_BYTES
from pi.coding_agent.tools.walk import listing_result
from pi.coding_agent.tools.workspace import ToolParams, Workspace

DEFAULT_LS_LIMIT = 500


class LsParams(ToolParams):
    path: str | None = Field(None, description="Folder to list (default: workspace)")
    limit: int = Field(DEFAULT_LS_LIMIT, ge=1, description="Maximum number of entries")


class LsTool(AgentTool[LsParams]):
    name = "ls"
    description = (
        "List a folder: entries sorted case-insensitively, dot files included, folders "
        f"marked with a trailing '/'. At most {DEFAULT_LS_LIMIT} entries by default and "
        f"{DEFAULT_MAX_BYTES // 1024} KB."
    )
    parameters = LsParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: LsParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        folder = self.workspace.resolve(params.path or ".")
        shown = params.path or "."
        if not folder.exists():
            raise FileNotFoundError(f"Path not found: {shown}")
        if not folder.is_dir():
            raise NotADirectoryError(f"Not a directory: {shown}")
        entries = []
        for name in sorted(os.listdir(folder), key=lambda name: (name.lower(), name)):
            try:
                mode = (folder / name).stat().st_mode  # a link to a folder is a folder
            except OSError:  # a dangling symlink cannot be examined: left out, like Pi
                continue
            entries.append(name + "/" if stat.S_ISDIR(mode) else name)
        if not entries:
            return ToolResult.text("(empty directory)")
        limit, note = params.limit, None
        if len(entries) > limit:
            note = (f"{limit} entries limit reached. Use limit={limit * 2} for more",
                    "entryLimitReached", limit)
        return listing_result(entries[:limit], note)

