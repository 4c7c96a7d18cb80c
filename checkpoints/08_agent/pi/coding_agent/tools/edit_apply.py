"""The pure part of `edit`: apply exact replacements to a text, all or nothing.

No file system here, so every rule is easy to test on strings. Each `oldText` must occur
exactly once in the *original* text (not in the text as earlier edits left it, which would
make the result depend on the order of the list), the matched spans must not overlap, and the
result must differ from the original. Any broken rule raises before anything is written.

Matching is exact, after one normalisation Pi also does: line endings become `\n` for the
match and are restored afterwards, and a byte-order mark is set aside and put back. Pi falls
back to a fuzzy match (smart quotes, trailing spaces, Unicode dashes) and, when it does,
rewrites the *whole* file in normalised form; this course does not fuzzy-match at all.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass

BOM = "\ufeff"


@dataclass(frozen=True)
class Replacement:
    old_text: str
    new_text: str


class EditError(ValueError):
    """An edit that cannot be applied; the message is written for the model."""


def line_ending(text: str) -> str:
    """The file's line ending, judged like Pi by its first line break."""
    for index, char in enumerate(text):
        if char == "\n":
            return "\n"
        if char == "\r":
            return "\r\n" if text[index + 1 : index + 2] == "\n" else "\n"
    return "\n"


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def apply_edits(original: str, edits: list[Replacement], shown: str) -> str:
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


def _span(text: str, edit: Replacement, index: int, count: int, shown: str) -> tuple[int, int]:
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
