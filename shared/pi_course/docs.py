"""Docs that never drift: chapters include code from the checkpoint by anchor, never pasted.

A chapter's source, `shared/chapters/NN_slug.md`, writes

    <!-- include pi/ai/stream.py::AssistantMessageEventStream.push -->

and the generator puts the current code of that symbol (a top-level class or function, or a
method as `Class.method`; no `::` means the whole file) in its place. Each source is rendered
twice, with the same code from the step's checkpoint:

- `docs/NN_slug.md`, where people read it on GitHub (an HTML comment renders as nothing there,
  so the published chapter must already hold the code), and
- the checkpoint's own `CHAPTER.md`, whose links to other chapters lead back to `docs/`.

Sources write links as seen from `docs/`. Any other page in `shared/chapters/` (`protocol.md`)
is published too, with anchors resolved against the last checkpoint, and `docs/README.md`
lists them all. Everything is committed; an anchor that no longer resolves stops generation,
and `verify` names a published page that differs from what its source generates.

The Chinese edition is written in `shared/chapters/zh/` and published to `docs/zh/` (see
`translations.py`); an English page whose translation exists gets a link to it at the top.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pi_course.manifest import Step
from pi_course.markers import exercises_in
from pi_course.paths import CourseError, Layout

DOC_LINK = re.compile(r"\]\((?!https?:|#|/|\.\./)([\w./-]+\.md)(#[\w-]*)?\)")
LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)")
INCLUDE = re.compile(r"^<!-- include (?P<file>[\w./-]+)(?:::(?P<symbol>[\w.]+))? -->$")
SOURCES = "shared/chapters"
PUBLISHED = "docs"
TRANSLATED = f"{SOURCES}/zh"  # the Chinese edition's sources (see translations.py)


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


def expand(line: str, files: dict[str, str], where: str, marked: Path) -> str:
    match = INCLUDE.match(line.strip())
    if match is None:
        return line
    rel, symbol = match["file"], match["symbol"]
    if rel not in files:
        raise CourseError(f"{where}: anchor file `{rel}` is not in this checkpoint")
    code = find_symbol(files[rel], symbol, f"{where} ({rel})") if symbol else files[rel].rstrip()
    label = f"`{rel}`" + (f" · `{symbol}`" if symbol else "")
    shown = f"{label}\n\n```python\n{code}\n```"
    solved = exercises_solved_by(marked / rel, symbol, step_of(where))
    return folded(shown, solved, where) if solved else shown


def exercises_solved_by(marked: Path, symbol: str | None, step: str) -> list[str]:
    """This step's exercises whose stub lies inside `symbol` in the marked source."""
    if not step or not marked.is_file():
        return []
    text = marked.read_text(encoding="utf-8")
    code = find_symbol(text, symbol, str(marked)) if symbol else text
    return [found for found in exercises_in(code, str(marked))
            if found.startswith(f"{step}-")]


def step_of(where: str) -> str:
    """The step number of a chapter (`shared/chapters/09_session.md:12` -> "09"), or ""."""
    name = Path(where.split(":")[0]).name
    return name[:2] if name[:2].isdigit() else ""


def folded(shown: str, exercises: list[str], where: str) -> str:
    """Code that holds an exercise, folded away so a reader tries the exercise first; in a
    practice copy the code is the learner's stub, and the summary says so."""
    names, step = ", ".join(exercises), exercises[0][:2]
    chinese = where.startswith(TRANSLATED)
    if f"exercise {exercises[0]}:" in shown:  # the stub's NotImplementedError names it
        summary = (f"练习 {names}：你的存根，由你来写" if chinese else
                   f"Exercise {names}: your stub, to write")
    else:
        summary = (f"练习 {names} 的答案（先用 <code>pi-course practice {step}</code> 自己试试）"
                   if chinese else
                   f"The solution of exercise {names} (try <code>pi-course practice {step}</code> "
                   "first)")
    return f"<details><summary>{summary}</summary>\n\n{shown}\n\n</details>"


def chapter_source(step: Step) -> str:
    """Where a step's chapter is written, relative to the checkout."""
    return f"{SOURCES}/{step.folder}.md"


def published_chapter(step: Step) -> str:
    """Where a step's chapter is published, relative to the checkout."""
    return f"{PUBLISHED}/{step.folder}.md"


def expanded(layout: Layout, where: str, files: dict[str, str]) -> list[str]:
    """The source's lines with every anchor replaced by the code in `files`."""
    path = layout.root / where
    if not path.is_file():
        raise CourseError(f"{where}: missing (each step needs its chapter there)")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [expand(line, files, f"{where}:{number}", layout.source)
            for number, line in enumerate(lines, 1)]


def banner(where: str, code_from: str) -> str:
    return (f"<!-- generated from {where} with code from {code_from}: edit the source, "
            "then run `pi-course generate` -->")


def to_chinese(layout: Layout, name: str, docs: str) -> list[str]:
    """The language switch above an English page whose Chinese translation exists.

    `docs` is the way from the page to `docs/` (`""` in docs/, `"../../docs/"` in a checkpoint).
    """
    if not (layout.root / TRANSLATED / name).is_file():
        return []
    return [f"**English** · [中文]({docs}zh/{name})", ""]


def render_chapter(layout: Layout, step: Step, files: dict[str, str]) -> str:
    """The step's chapter for its checkpoint's `CHAPTER.md`: links to docs/ lead back up."""
    where = chapter_source(step)
    body = expanded(layout, where, files)
    # The chapter now lives two folders down, in checkpoints/NN_slug/: keep links to docs working.
    body = [DOC_LINK.sub(rf"](../../{PUBLISHED}/\1\2)", line) for line in body]
    switch = to_chinese(layout, f"{step.folder}.md", f"../../{PUBLISHED}/")
    return "\n".join([banner(where, "this checkpoint"), *switch, *body]) + "\n"


def publish_chapter(layout: Layout, step: Step, files: dict[str, str]) -> str:
    """The step's chapter for `docs/NN_slug.md`, with the same code as its checkpoint."""
    where = chapter_source(step)
    body = expanded(layout, where, files)
    code_from = f"checkpoints/{step.folder}"
    switch = to_chinese(layout, f"{step.folder}.md", "")
    return "\n".join([banner(where, code_from), *switch, *body]) + "\n"


def publish_page(layout: Layout, name: str, last: Step, files: dict[str, str]) -> str:
    """A page that is no step's chapter (`protocol.md`), with anchors from the last step."""
    where = f"{SOURCES}/{name}"
    code_from = f"checkpoints/{last.folder}"
    switch = to_chinese(layout, name, "")
    return "\n".join([banner(where, code_from), *switch, *expanded(layout, where, files)]) + "\n"


def title_of(text: str, default: str) -> str:
    """A page's first `# ` heading, for the index."""
    heading = next((line for line in text.splitlines() if line.startswith("# ")), "")
    return heading[2:].strip() or default


def broken_links(folder: Path, text: str) -> list[str]:
    """Relative link targets in `text` that do not exist, seen from `folder`."""
    return [target for target in LINK.findall(text) if not (folder / target).exists()]
