"""Prompt templates: `prompts/review.md` is the user's command `/review`; `/review app.py fast`
is its body with `$1`, `$2`, … filled by position and `$@` / `$ARGUMENTS` by all arguments."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi.coding_agent.resources.frontmatter import Diagnostic, read_markdown

PLACEHOLDER = re.compile(r"\$(?:(\d+)|ARGUMENTS|@)")
WORD = "[^\t-\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"  # JavaScript's \S
# An argument: a closed quote and the word after it, or a word. Linear: no choice is undone,
# and a quote with no closing twin (a scan to the end) can only be the last of its kind.
ARGUMENT = re.compile(rf"""(["'])((?:\\\1|(?!\\?\1).)*)\1({WORD}*)|({WORD}+)""", re.S)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: Path
    source: str


def load_template(path: Path, source: str) -> PromptTemplate | Diagnostic:
    """The template in `path`, described by its frontmatter, else by its first non-empty line
    cut to 60 characters."""
    markdown = read_markdown(path)
    if isinstance(markdown, Diagnostic):
        return markdown
    description = markdown.frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        first = next((line.strip() for line in markdown.body.splitlines() if line.strip()), "")
        description = first[:60] + ("..." if len(first) > 60 else "")
    return PromptTemplate(path.stem, description.strip(), markdown.body, path, source)


def parse_command_args(text: str) -> list[str]:
    """Pi 1.6's rules: whitespace splits; a quote opens only at an argument's start and groups
    up to its closing twin (`\\"` inside is a quote), and one never closed is a plain character."""
    return [m[4] or m[2].replace("\\" + m[1], m[1]) + m[3] for m in ARGUMENT.finditer(text)]


def substitute_args(content: str, args: Sequence[str]) -> str:
    """Fill the placeholders in one pass, so an argument's own `$1` is left as it is."""
    def fill(match: re.Match[str]) -> str:
        if match[1] is None:
            return " ".join(args)
        index = int(match[1]) - 1
        return args[index] if 0 <= index < len(args) else ""
    return PLACEHOLDER.sub(fill, content)


def expand_prompt_template(text: str, templates: Sequence[PromptTemplate]) -> str | None:
    """The filled-in template for `/name args`; None when `text` names no template."""
    if not text.startswith("/"):
        return None
    name, _, rest = text[1:].partition(" ")
    template = next((t for t in templates if t.name == name), None)
    return None if template is None else substitute_args(template.content, parse_command_args(rest))
