"""What keeps the course readable: module size budgets and links that lead somewhere.

Budgets are warnings (a module of 160 lines is a smell, not a failure); a broken link in a
generated README or chapter is a problem, because a learner follows it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Protocol

from pi_course.manifest import Manifest
from pi_course.paths import CODE, Layout
from pi_course.render import learner_files

MODULE_BUDGET = 150


class Report(Protocol):
    problems: list[str]
    warnings: list[str]


def read(file: Path) -> str:
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def check_budgets(layout: Layout, manifest: Manifest, report: Report) -> None:
    final = learner_files(layout, manifest, manifest.steps[-1].id, False)
    for rel, text in sorted(final.items()):
        lines = len(text.splitlines())
        if rel.startswith(CODE) and lines > MODULE_BUDGET:
            report.warnings.append(f"{rel}: {lines} lines (budget {MODULE_BUDGET})")


LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)")


def check_links(layout: Layout, manifest: Manifest, report: Report) -> None:
    """Relative links in generated READMEs and chapters point at something that exists."""
    for step in manifest.steps:
        folder = layout.checkpoints / step.folder
        for name in ("README.md", "CHAPTER.md"):
            for target in LINK.findall(read(folder / name)):
                if not (folder / target).exists():
                    where = f"checkpoints/{step.folder}/{name}"
                    report.problems.append(f"{where}: broken link {target}")
