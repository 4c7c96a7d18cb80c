"""`edit`, several exact replacements in one file, applied together or not at all: each
`oldText` occurs exactly once in the *original* text, spans do not overlap, the result differs.
Line endings and a byte-order mark are kept. Unlike Pi, there is no fuzzy fallback match."""

from __future__ import annotations

import itertools
from typing import Any

from pydantic import Field, model_validator

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.edit_diff import BOM, to_lf, unified_diff
from pi.coding_agent.tools.workspace import ToolParams, Workspace, atomic_write, read_named


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
    description = ("Edit a file by exact text replacement. Each edits[i].oldText must match "
                   "exactly (whitespace included) and only once in the original file; "
                   "replacements must not overlap. If any edit fails, the file is unchanged.")
    parameters = EditParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(self, call_id: str, params: EditParams, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        path = self.workspace.resolve(params.path)
        shown = params.path.removeprefix("@")
        # No `await` from the read to the write, so no parallel call can come in between.
        try:
            before = read_named(path, shown).decode("utf-8")
        except UnicodeDecodeError as error:  # editing it would corrupt the bytes
            raise EditError(f"{shown} is not UTF-8 text ({error.reason}); cannot edit it") from None
        after = apply_edits(before, params.edits, shown)
        atomic_write(path, after.encode("utf-8"))
        replaced = [(edit.old_text, edit.new_text) for edit in params.edits]
        diff, first_line = unified_diff(before, after, shown, replaced)
        return ToolResult.text(
            f"Successfully replaced {len(params.edits)} block(s) in {shown}.",
            {"diff": diff, "firstChangedLine": first_line},
        )


def ending_at(original: str, offset: int) -> str:
    """The line ending of the line at `offset` (else of the line before it), as Pi judges it."""
    feed = original.find("\n", offset)
    feed = feed if feed != -1 else original.rfind("\n", 0, offset + 1)
    if feed == -1:
        return "\r" if "\r" in original else "\n"
    return "\r\n" if feed > 0 and original[feed - 1] == "\r" else "\n"


def splice(original: str, spans: list[tuple[tuple[int, int], str]]) -> str:
    """Put each new text into its span (the spans in file order), so untouched lines keep
    their line endings; a new text's line breaks take the ending of the line it lands on."""
    parts, position = [], 0
    for (start, end), new_text in spans:
        ending = ending_at(original, start)
        parts += [original[position:start], to_lf(new_text).replace("\n", ending)]
        position = end
    result = ""
    for part in [*parts, original[position:]]:
        if result.endswith("\r") and part.startswith("\n"):  # a lone CR must not pair up
            result += "\n"
        result += part
    return result


def apply_edits(original: str, edits: list[EditItem], shown: str) -> str:
    """The new text after every edit; raises EditError naming the first broken rule, checked
    in Pi's order: an empty old text, then each edit's match, then overlaps, then no change."""
    bom = BOM if original.startswith(BOM) else ""
    body = original.removeprefix(BOM)
    names = [f"edits[{index}]" if len(edits) > 1 else "" for index in range(len(edits))]
    for name, edit in zip(names, edits, strict=True):
        if not edit.old_text:
            raise EditError(f"{name + '.' if name else ''}oldText must not be empty in {shown}.")
    text = to_lf(body)  # matched as Pi matches: every line break as "\n"
    spans = sorted(((_span(text, edit, name, shown), index) for index, (name, edit) in
                    enumerate(zip(names, edits, strict=True))), key=lambda s: (s[0][0], s[1]))
    for (first, i), (second, j) in itertools.pairwise(spans):
        if first[1] > second[0]:
            raise EditError(f"edits[{i}] and edits[{j}] overlap in {shown}. Merge them into one "
                            "edit or target disjoint regions.")
    # where each character of `text` (and its end) is in `body`: a CRLF's "\n" is its CR
    at = [i for i in range(len(body) + 1) if body[i:i + 1] != "\n" or body[i - 1:i] != "\r"]
    result = splice(body, [((at[start], at[end]), edits[index].new_text)
                           for (start, end), index in spans])
    if to_lf(result) == to_lf(body):
        raise EditError(f"No changes made to {shown}. The replacements produced identical "
                        "content." if len(edits) > 1 else
                        f"No changes made to {shown}. The replacement produced identical "
                        "content. This might indicate an issue with special characters or "
                        "the text not existing as expected.")
    return bom + result


def _span(text: str, edit: EditItem, which: str, shown: str) -> tuple[int, int]:
    """Where `edit.old_text` occurs in `text`, exactly once; `which` names it ("edits[1]")."""
    old = to_lf(edit.old_text)
    found = text.count(old)  # non-overlapping occurrences, like Pi's split
    if not found:
        raise EditError(f"Could not find {which} in {shown}. The oldText must match exactly "
                        "including all whitespace and newlines." if which else
                        f"Could not find the exact text in {shown}. The old text must match "
                        "exactly including all whitespace and newlines.")
    if found > 1:
        raise EditError(f"Found {found} occurrences of {which or 'the text'} in {shown}. "
                        f"{'Each oldText' if which else 'The text'} must be unique. Please "
                        "provide more context to make it unique.")
    start = text.index(old)
    return start, start + len(old)
