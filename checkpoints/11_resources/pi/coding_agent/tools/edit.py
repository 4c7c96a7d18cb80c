"""`edit`, several exact replacements in one file, applied together or not at all.

The model quotes the text it wants to change (`oldText`) and what it should become
(`newText`). Quoting instead of giving line numbers keeps edits correct even when the model's
picture of the file is a few lines off, and demanding a unique match stops it from changing
the wrong one of two similar lines. Pi's edit took a single replacement; here `edits` is a
list, so a change in several places costs one call and one atomic write.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.edit_apply import EditError, Replacement, apply_edits, unified_diff
from pi.coding_agent.tools.files import atomic_write, read_named
from pi.coding_agent.tools.params import ToolParams
from pi.coding_agent.tools.workspace import Workspace


class EditItem(ToolParams):
    old_text: str = Field(description="Exact text to replace; must occur exactly once")
    new_text: str = Field(description="The text to put in its place")


class EditParams(ToolParams):
    path: str = Field(description="Path of the file to edit, relative to the workspace")
    edits: list[EditItem] = Field(
        min_length=1, description="Replacements, each matched against the original file"
    )

    @model_validator(mode="before")
    @classmethod
    def accept_single_edit(cls, data: Any) -> Any:
        """Also accept Pi's older shape, `{path, oldText, newText}`, as a one-item list."""
        if isinstance(data, dict) and "edits" not in data and "oldText" in data:
            rest = {k: v for k, v in data.items() if k not in ("oldText", "newText")}
            return {**rest, "edits": [{"oldText": data["oldText"], "newText": data.get("newText")}]}
        return data


class EditTool(AgentTool[EditParams]):
    name = "edit"
    description = (
        "Edit a file by exact text replacement. Each edits[i].oldText must match exactly "
        "(whitespace included) and only once in the original file; replacements must not "
        "overlap. If any edit fails, the file is left unchanged."
    )
    parameters = EditParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(
        self, call_id: str, params: EditParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        path = self.workspace.resolve(params.path)
        shown = params.path.removeprefix("@")
        edits = [Replacement(item.old_text, item.new_text) for item in params.edits]
        async with self.workspace.locks.lock(path):
            before = decode(read_named(path, shown), shown)
            after = apply_edits(before, edits, shown)
            await self.workspace.locks.before_write(path)
            atomic_write(path, after.encode("utf-8"))
        diff, first_line = unified_diff(before, after, shown)
        what = "text" if len(edits) == 1 else f"{len(edits)} blocks of text"
        return ToolResult.text(
            f"Successfully replaced {what} in {shown}.",
            {"diff": diff, "firstChangedLine": first_line},
        )


def decode(data: bytes, shown: str) -> str:
    """The file as text; editing bytes that are not UTF-8 would corrupt them, so refuse."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EditError(f"{shown} is not UTF-8 text ({error.reason}); cannot edit it") from None
