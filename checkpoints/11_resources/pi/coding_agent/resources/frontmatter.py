"""Reading resource files: the YAML frontmatter of a skill or template (PyYAML reads YAML 1.1:
`yes` is true, text in Pi's 1.2), the diagnostic (Pi's `ResourceDiagnostic`) a broken file
becomes, so one bad file never stops the others, and which of two resources of one name wins."""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

import yaml  # type: ignore[import-untyped, unused-ignore]
from pydantic.alias_generators import to_camel

from pi.ai.bounded import read_file, within_bounds

if TYPE_CHECKING:
    from pi.coding_agent.resources.prompt_templates import PromptTemplate
    from pi.coding_agent.resources.skills import Skill

FENCE = "---"


class FrontmatterError(ValueError):
    """The frontmatter block could not be read; `line` is 1-based, in the whole file."""

    def __init__(self, problem: str, line: int | None = 2) -> None:
        where = f" (line {line})" if line else ""
        super().__init__(f"invalid YAML frontmatter: {problem}{where}")


def pi_json(value: Any) -> Any:
    """A dataclass the way Pi writes it as JSON: camelCase keys, paths as text, no nulls."""
    if is_dataclass(value):
        return {to_camel(key): pi_json(item) for key, item in vars(value).items()
                if item is not None}
    if isinstance(value, tuple | list):
        return [pi_json(item) for item in value]
    return str(value) if isinstance(value, Path) else value


@dataclass(frozen=True)
class Collision:
    """Two resources of one kind share a name: the first one found wins."""

    resource_type: Literal["skill", "prompt"]
    name: str
    winner_path: Path
    loser_path: Path


@dataclass(frozen=True)
class Diagnostic:
    """One problem with one file (or path), worded for the person who wrote it."""

    type: Literal["warning", "collision"]
    message: str
    path: Path
    collision: Collision | None = None

    def line(self) -> str:
        """One line for a terminal, `path: message` (who prints it says it is a warning)."""
        return f"{self.path}: {self.message}"


def warning(path: Path, message: str) -> Diagnostic:
    return Diagnostic("warning", message, path)


R = TypeVar("R", "Skill", "PromptTemplate")


def first_wins(kind: Literal["skill", "prompt"], found: Iterable[R | Diagnostic],
               same_file_once: bool = False) -> tuple[tuple[R, ...], tuple[Diagnostic, ...]]:
    """Resources by name, first come first served; a later one of the same name is a collision
    naming both files, listed after all warnings. With `same_file_once`, the same file reached
    twice (a folder given twice, a symlink) is one resource, skipped without a word."""
    by_name: dict[str, R] = {}
    real_paths: set[str] = set()
    warnings: list[Diagnostic] = []
    collisions: list[Diagnostic] = []
    for item in found:
        if isinstance(item, Diagnostic):
            warnings.append(item)
        elif same_file_once and os.path.realpath(item.file_path) in real_paths:
            continue
        elif item.name in by_name:
            collisions.append(Diagnostic(
                "collision", f'name "{item.name}" collision', item.file_path,
                Collision(kind, item.name, by_name[item.name].file_path, item.file_path)))
        else:
            by_name[item.name] = item
            real_paths.add(os.path.realpath(item.file_path))
    return tuple(by_name.values()), tuple(warnings + collisions)


class Markdown(NamedTuple):
    frontmatter: dict[str, Any]
    body: str


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """(the YAML between the fences, the rest); no block gives (None, the whole text)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
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
        # within_bounds: aliases of aliases expand only when walked, so refuse them here
        data = within_bounds(yaml.load(block, Loader=UniqueKeyLoader))
    except yaml.YAMLError as error:
        # Where the broken construct began (an unclosed `[`) helps more than where it ended.
        mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
        parts = (getattr(error, "context", None), getattr(error, "problem", None))
        problem = ": ".join(p for p in parts if p) or str(error).splitlines()[0]
        # The block starts on line 2 of the file; PyYAML counts its lines from 0.
        raise FrontmatterError(problem, mark.line + 2 if mark is not None else None) from None
    except RecursionError:  # `[[[[…` thousands deep: PyYAML recurses once per level
        raise FrontmatterError("nested too deeply to read") from None
    except ValueError as error:  # a date like 2024-02-30, 5,000 digits, an alias bomb (TooLarge)
        raise FrontmatterError(str(error).split(":")[0], None) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError("the block is not a mapping of keys to values")
    return {str(key): value for key, value in data.items()}


def parse_markdown(text: str) -> Markdown:
    """Frontmatter and body (trimmed) of a Markdown file; raises FrontmatterError."""
    block, body = split_frontmatter(text)
    return Markdown(parse_yaml_block(block or ""), body.strip())


def strip_frontmatter(text: str) -> str:
    """The body alone, trimmed; never raises, whatever the block holds."""
    return split_frontmatter(text)[1].strip()


def read_markdown(path: Path) -> Markdown | Diagnostic:
    """The Markdown file at `path`, or the warning that says, for its author, why not."""
    try:
        return parse_markdown(read_file(path))
    except UnicodeDecodeError as error:
        return warning(path, f"not valid UTF-8 (byte {error.start}); save the file as UTF-8")
    except OSError as error:
        return warning(path, f"cannot be read ({error.strerror or error})")
    except FrontmatterError as error:
        return warning(path, str(error))
