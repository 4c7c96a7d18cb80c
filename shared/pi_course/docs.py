"""Docs that never drift: chapters include code from the checkpoint by anchor, never pasted.

A chapter in `docs/NN_slug.md` writes

    <!-- include pi/ai/stream.py::AssistantMessageEventStream.push -->

and the generator puts the current code of that symbol (a top-level class or function, or a
method as `Class.method`; no `::` means the whole file) into the checkpoint's `CHAPTER.md`.
An anchor that no longer resolves stops generation and fails `verify`.
"""

from __future__ import annotations

import ast
import re

from pi_course.manifest import Step
from pi_course.paths import CourseError, Layout

DOC_LINK = re.compile(r"\]\((?!https?:|#|/|\.\./)([\w./-]+\.md)(#[\w-]*)?\)")
INCLUDE = re.compile(r"^<!-- include (?P<file>[\w./-]+)(?:::(?P<symbol>[\w.]+))? -->$")


def defines(node: ast.stmt, name: str) -> bool:
    named = isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    return named and getattr(node, "name", None) == name


def find_symbol(source: str, symbol: str, where: str) -> str:
    """The source lines of `symbol` (`name` or `Class.name`), decorators included."""
    scope: list[ast.stmt] = ast.parse(source).body
    node: ast.stmt | None = None
    for name in symbol.split("."):
        node = next((n for n in scope if defines(n, name)), None)
        if node is None:
            raise CourseError(f"{where}: anchor `{symbol}` not found")
        scope = node.body if isinstance(node, ast.ClassDef) else []
    assert node is not None and node.end_lineno is not None
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    lines = source.splitlines()[first - 1 : node.end_lineno]
    indent = len(lines[0]) - len(lines[0].lstrip())
    return "\n".join(line[indent:] for line in lines)


def expand(line: str, files: dict[str, str], where: str) -> str:
    match = INCLUDE.match(line.strip())
    if match is None:
        return line
    rel, symbol = match["file"], match["symbol"]
    if rel not in files:
        raise CourseError(f"{where}: anchor file `{rel}` is not in this checkpoint")
    code = find_symbol(files[rel], symbol, f"{where} ({rel})") if symbol else files[rel].rstrip()
    label = f"`{rel}`" + (f" · `{symbol}`" if symbol else "")
    return f"{label}\n\n```python\n{code}\n```"


def chapter_path(layout: Layout, step: Step) -> str:
    return f"docs/{step.folder}.md"


def render_chapter(layout: Layout, step: Step, files: dict[str, str]) -> str:
    """The step's chapter with every anchor replaced by the checkpoint's code."""
    where = chapter_path(layout, step)
    path = layout.root / where
    if not path.is_file():
        raise CourseError(f"step {step.id:02d} needs its chapter {where}")
    lines = path.read_text(encoding="utf-8").splitlines()
    banner = f"<!-- generated from {where} with code from this checkpoint; edit the source -->"
    body = [expand(line, files, f"{where}:{number}") for number, line in enumerate(lines, 1)]
    # The chapter now lives two folders down, in checkpoints/NN_slug/: keep links to docs working.
    body = [DOC_LINK.sub(r"](../../docs/\1\2)", line) for line in body]
    return "\n".join([banner, *body]) + "\n"
