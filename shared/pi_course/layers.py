"""Layers never import upward, and the agent never imports the course around it.

The agent, `pi/`, is a stack and nothing else: `pi.ai` (protocol, streams, providers) below
`pi.agent` (tools, loop, Agent) below `pi.coding_agent` (coding tools, sessions, compaction,
resources, extensions, runtime) below `pi.modes` (the ways to run it, and `pi.modes.main`, the
`pi-agent` command). Beside it, `course/` is the course plumbing: each checkpoint's command
line and its subcommands, the trace printer, the eval driver and its case vocabulary, and the
eval harness. The course may use the agent; the agent never imports the course, not even from
a mode. Checked on the final step's code by reading imports (nothing is run); the MockModel,
which every checkpoint tests against, must not import any checkpoint either, and no
checkpoint imports the `pi_course` tooling.
"""

from __future__ import annotations

import ast
from typing import Protocol

from pi_course.manifest import Manifest
from pi_course.paths import CODE, Layout
from pi_course.render import learner_files

LAYERS = {"pi.ai": 0, "pi.agent": 1, "pi.coding_agent": 2, "pi.modes": 3}
PACKAGE_FILES = {"pi/__init__.py", "pi/__main__.py"}  # the only files of `pi/` outside a layer


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


def course_side(module: str) -> bool:
    """A module of the course plumbing beside the agent (`course` and everything in it)."""
    return module == "course" or module.startswith("course.")


def check_layers(layout: Layout, manifest: Manifest, report: Report) -> None:
    """No upward import in the agent, none of the course; the MockModel imports no checkpoint."""
    final = learner_files(layout, manifest, manifest.steps[-1].id, False)
    for rel, text in final.items():
        if not rel.startswith(CODE) or not rel.endswith(".py"):
            continue
        agent = rel.startswith("pi/")
        own = layer_of(rel.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
        if agent and own is None and rel not in PACKAGE_FILES:
            report.problems.append(f"{rel}: pi/ holds only the layers {sorted(LAYERS)}; "
                                   "course plumbing goes in course/")
        for module in imported_modules(text):
            if module == "pi_course" or module.startswith("pi_course."):
                report.problems.append(f"{rel}: imports {module}, the course tooling")
            if not agent:
                continue
            if course_side(module):
                report.problems.append(
                    f"{rel}: imports {module}, course plumbing the agent never imports"
                )
            other = layer_of(module)
            if own is not None and other is not None and other > own:
                report.problems.append(f"{rel}: imports {module}, a higher layer")
    for path in sorted(layout.mock_model.rglob("*.py")):
        imports = imported_modules(path.read_text(encoding="utf-8"))
        if any(m in ("pi", "course") or m.startswith(("pi.", "course.")) for m in imports):
            report.problems.append(f"{path.relative_to(layout.root)}: mock_model imports a "
                                   "checkpoint")
