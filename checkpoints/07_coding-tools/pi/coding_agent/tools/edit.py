"""`edit`, several exact replacements in one file, applied together or not at all: each
`oldText` occurs exactly once in the *original* text, spans do not overlap, the result differs.
Line endings and a byte-order mark are kept. Unlike Pi, there is no fuzzy fallback match."""

from __future__ import annotations

import difflib
import itertools
import re
from typing import Any

from pydantic import Field, model_validator

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.workspace import ToolParams, Workspace, atomic_write, read_named

BOM = "\ufeff"


class EditError(ValueError):
    """An edit that cannot be applied; the message is written for the model."""


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
        # No `await` from the read to the write, so no parallel call can come in between.
        try:
            before = read_named(path, shown).decode("utf-8")
        except UnicodeDecodeError as error:  # editing it would corrupt the bytes
            raise EditError(f"{shown} is not UTF-8 text ({error.reason}); cannot edit it") \
                from None
        after = apply_edits(before, params.edits, shown)
        atomic_write(path, after.encode("utf-8"))
        diff, first_line = unified_diff(before, after, shown)
        what = "text" if len(params.edits) == 1 else f"{len(params.edits)} blocks of text"
        return ToolResult.text(
            f"Successfully replaced {what} in {shown}.",
            {"diff": diff, "firstChangedLine": first_line},
        )


def line_ending(text: str) -> str:
    """The file's line ending, judged like Pi by its first line break (a lone CR counts as LF)."""
    first = re.search(r"\r\n|\r|\n", text)
    return "\r\n" if first and first[0] == "\r\n" else "\n"


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def apply_edits(original: str, edits: list[EditItem], shown: str) -> str:
    """The new text after every edit; raises EditError naming the first broken rule."""
    bom = BOM if original.startswith(BOM) else ""
    body = original.removeprefix(BOM)
    ending, text = line_ending(body), to_lf(body)
    spans = sorted((_span(text, edit, index, len(edits), shown), index) for index, edit in
                   enumerate(edits))
    for (first, i), (second, j) in itertools.pairwise(spans):
        if first[1] > second[0]:
            raise EditError(f"edits[{i}] and edits[{j}] overlap in {shown}. Merge them into one "
                            "edit. No edits were applied.")
    result = text
    for (start, end), index in reversed(spans):  # from the end, so earlier spans stay valid
        result = result[:start] + to_lf(edits[index].new_text) + result[end:]
    if result == text:
        raise EditError(f"No changes made to {shown}. The replacement produced identical "
                        "content. This might indicate an issue with special characters or "
                        "the text not existing as expected.")
    return bom + (result.replace("\n", "\r\n") if ending == "\r\n" else result)


def _span(text: str, edit: EditItem, index: int, count: int, shown: str) -> tuple[int, int]:
    """Where `edit.old_text` occurs in `text`; it must occur exactly once."""
    which = "" if count == 1 else f" of edits[{index}]"
    unchanged = "" if count == 1 else " No edits were applied."
    old = to_lf(edit.old_text)
    if not old:
        raise EditError(f"The old text{which} is empty; quote the text to replace.{unchanged}")
    found = text.count(old)  # non-overlapping occurrences, like Pi's indexOf loop
    if found == 0:
        raise EditError(f"Could not find the exact text{which} in {shown}. The old text must "
                        f"match exactly including all whitespace and newlines.{unchanged}")
    if found > 1:
        raise EditError(f"Found {found} occurrences of the text{which} in {shown}. The text "
                        "must be unique. Please provide more context to make it unique."
                        f"{unchanged}")
    start = text.index(old)
    return start, start + len(old)


def unified_diff(before: str, after: str, shown: str) -> tuple[str, int | None]:
    """A unified diff of the change (line endings normalised) and its first new line number."""
    old, new = (to_lf(text.removeprefix(BOM)).splitlines() for text in (before, after))
    diff = difflib.unified_diff(old, new, f"a/{shown}", f"b/{shown}", lineterm="")
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    first = next((j1 + 1 for tag, _, _, j1, _ in opcodes if tag != "equal"), None)
    return "\n".join(diff), first
