"""YAML frontmatter, the few lines of metadata at the top of a skill or template file.

A skill file starts with a block between two `---` lines; the rest is Markdown for the model.
The loader needs only the block (name, description), the model needs only the rest, so the
file is split once here. Line endings are normalised first, so a file saved on Windows reads
the same. A block that is not valid YAML is an error naming the line in the file, and the
caller turns it into a warning: one broken skill must not stop the others from loading.

PyYAML reads YAML 1.1, Pi's `yaml` package YAML 1.2: `yes` is a boolean here and a string in
Pi, `1.0` is a float here and the number 1 there. Skill files rarely notice. A key given
twice is an error in both (PyYAML alone would keep the last one silently).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import yaml  # type: ignore[import-untyped, unused-ignore]

from pi.ai.bounded import NotAFile, TooLarge, within_bounds

FENCE = "---"


class FrontmatterError(ValueError):
    """The frontmatter block could not be read; `line` is 1-based, in the whole file."""

    def __init__(self, problem: str, line: int | None) -> None:
        self.problem, self.line = problem, line
        where = f" (line {line})" if line else ""
        super().__init__(f"invalid YAML frontmatter: {problem}{where}")


@dataclass(frozen=True)
class Markdown:
    """A Markdown file split in two: the frontmatter mapping and the body after it."""

    frontmatter: dict[str, Any]
    body: str


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(the YAML between the fences, the rest); no block gives (None, the whole text)."""
    text = normalise_newlines(text)
    if not text.startswith(FENCE):
        return None, text
    end = text.find("\n" + FENCE, len(FENCE))
    if end == -1:
        return None, text
    # The line break before the closing fence belongs to the block: a `|` text keeps it.
    return text[len(FENCE) + 1 : end + 1], text[end + len(FENCE) + 1 :]


class UniqueKeyLoader(yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader, refusing a mapping that repeats a key, as Pi's `yaml` does."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, Hashable):
                continue  # PyYAML itself refuses it just below
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def parse_yaml_block(block: str) -> dict[str, Any]:
    """The block as a mapping; empty gives {}; anything else raises FrontmatterError."""
    try:
        data = yaml.load(block, Loader=UniqueKeyLoader)
    except yaml.YAMLError as error:
        # Where the broken construct began (an unclosed `[`) helps more than where it ended.
        mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
        parts = (getattr(error, "context", None), getattr(error, "problem", None))
        problem = ": ".join(p for p in parts if p) or str(error).splitlines()[0]
        # The block starts on line 2 of the file; PyYAML counts its lines from 0.
        raise FrontmatterError(problem, mark.line + 2 if mark is not None else None) from None
    except RecursionError:  # `[[[[…` thousands deep: PyYAML recurses once per level
        raise FrontmatterError("nested too deeply to read", 2) from None
    try:
        within_bounds(data)  # aliases of aliases expand only when walked: refuse them here
    except TooLarge as error:
        raise FrontmatterError(str(error), 2) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("the block is not a mapping of keys to values", 2)
    return {str(key): value for key, value in data.items()}


def parse_markdown(text: str) -> Markdown:
    """Frontmatter and body (trimmed) of a Markdown file; raises FrontmatterError."""
    block, body = split_frontmatter(text)
    return Markdown(parse_yaml_block(block) if block is not None else {}, body.strip())


def strip_frontmatter(text: str) -> str:
    """The body alone, trimmed; never raises, whatever the block holds."""
    return split_frontmatter(text)[1].strip()


def read_problem(error: OSError | UnicodeDecodeError) -> str:
    """Why a resource file could not be read, in words for its author."""
    if isinstance(error, UnicodeDecodeError):
        return f"not valid UTF-8 (byte {error.start}); save the file as UTF-8"
    if isinstance(error, NotAFile):
        return str(error.strerror)  # "is a folder, not a file"
    return f"cannot be read ({error.strerror or error})"
