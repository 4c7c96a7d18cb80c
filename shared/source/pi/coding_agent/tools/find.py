"""`find`, files and folders by glob (Pi runs fd): relative to the searched folder, folders
ending in `/`, `.gitignore` honoured, sorted; the limit notice only when something is left out."""

from __future__ import annotations

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.walk import compile_glob, listing_result, walk
from pi.coding_agent.tools.workspace import ToolParams, Workspace


class FindParams(ToolParams):
    pattern: str = Field(description="Glob such as '*.py', '**/*.json' or 'src/**/test_*.py'")
    path: str | None = Field(None, description="Folder to search in (default: workspace)")
    limit: int = Field(1000, ge=1, description="Maximum number of results")


class FindTool(AgentTool[FindParams]):
    name = "find"
    description = ("Find files and folders by glob pattern, relative to the search folder, "
                   "honouring `.gitignore`; sorted. At most 1000 results by default and 50 KB.")
    parameters = FindParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: FindParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        top = self.workspace.resolve(params.path or ".")
        if not top.is_dir():
            raise NotADirectoryError(f"Not a directory: {params.path}")
        wanted = compile_glob(params.pattern)
        found = sorted(
            relative + ("/" if is_dir else "")
            for path, is_dir in walk(self.workspace, top, signal)
            if wanted.fullmatch(relative := path.relative_to(top).as_posix())
        )
        if not found:
            return ToolResult.text("No files found matching pattern")
        limit, note = params.limit, None
        if len(found) > limit:
            note = (f"{limit} results limit reached. Use limit={limit * 2} for more, or refine "
                    "pattern", "resultLimitReached", limit)
        return listing_result(found[:limit], note)
