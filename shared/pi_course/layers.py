"""Layers never import upward: pi.ai below pi.agent below pi.coding_agent.

Checked on the final step's code by reading imports (nothing is run); the MockModel, which
every checkpoint tests against, must not import any checkpoint either.
"""

from __future__ import annotations

import ast
from typing import Protocol

from pi_course.manifest import Manifest
from pi_course.paths import Layout
from pi_course.render import learner_files

LAYERS = {"pi.ai": 0, "pi.agent": 1, "pi.coding_agent": 2}
TOP_LEVEL = ("pi", "pi.trace", "pi.cli")


class Report(Protocol):
    problems: list[str]


def imported_modules(text: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


def layer_of(module: str) -> int | None:
    for prefix, rank in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return None


def check_layers(layout: Layout, manifest: Manifest, report: Report) -> None:
    """A lower layer never imports a higher one; the MockModel imports no checkpoint."""
    final = learner_files(layout, manifest, manifest.steps[-1].id, False)
    for rel, text in final.items():
        if not rel.startswith("pi/") or not rel.endswith(".py"):
            continue
        own = layer_of(rel.removesuffix(".py").replace("/", "."))
        for module in imported_modules(text):
            other = layer_of(module)
            upward = other is not None and own is not None and other > own
            if upward or (own is not None and module in TOP_LEVEL):
                report.problems.append(f"{rel}: imports {module}, a higher layer")
    for path in sorted(layout.mock_model.rglob("*.py")):
        imports = imported_modules(path.read_text(encoding="utf-8"))
        if any(m == "pi" or m.startswith("pi.") for m in imports):
            report.problems.append(f"{path.relative_to(layout.root)}: mock_model imports pi")
