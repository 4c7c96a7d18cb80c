"""`find`, files and folders by glob, honouring `.gitignore`, sorted.

Pi runs fd; this walks in Python (see walk.py). Results are relative to the searched folder,
folders end in `/`, and the list is sorted so the same tree always gives the same answer.
The limit notice appears only when more paths matched than were shown (Pi's appears whenever
the count reaches the limit, even if nothing was left out).
"""

from __future__ import annotations

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.globs import compile_glob
from pi.coding_agent.tools.params import ToolParams
from pi.coding_agent.tools.listing import listing_result
from pi.coding_agent.tools.truncate import DEFAULT_MAX_BYTES
from pi.coding_agent.tools.walk import walk
from pi.coding_agent.tools.workspace import Workspace

DEFAULT_FIND_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(description="Glob such as '*.py', '**/*.json' or 'src/**/test_*.py'")
    path: str | None = Field(None, description="Folder to search in (default: workspace)")
    limit: int = Field(DEFAULT_FIND_LIMIT, ge=1, description="Maximum number of results")


class FindTool(AgentTool[FindParams]):
    name = "find"
    description = (
        "Find files and folders by glob pattern, relative to the search folder, honouring "
        f"`.gitignore`; sorted. At most {DEFAULT_FIND_LIMIT} results by default and "
        f"{DEFAULT_MAX_BYTES // 1024} KB."
    )
    parameters = FindParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: FindParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
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
        return listing(found, params.limit)


def listing(items: list[str], limit: int) -> ToolResult:
    limit_note = None
    if len(items) > limit:
        notice = f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        limit_note = (notice, "resultLimitReached", limit)
    return listing_result(items[:limit], limit_note)
