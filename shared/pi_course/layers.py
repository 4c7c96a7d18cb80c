"""Layers never import upward, and the agent never imports the course around it.

The agent is a stack: `pi.ai` (protocol, streams, providers) below `pi.agent` (tools, loop,
Agent) below `pi.coding_agent` (coding tools, sessions, compaction, resources, extensions,
runtime) below `pi.modes` below the `pi.agent_main` entry point. Everything else in the
package is course plumbing (the checkpoint CLI and its subcommands, the trace printer, the
eval driver and its case vocabulary) or the eval harness, `pi.evals`: those may use the
agent, the agent never uses them, not even sideways from a mode. Checked on the final step's
code by reading imports (nothing is run); the MockModel, which every checkpoint tests against,
must not import any checkpoint either, and no checkpoint imports the `pi_course` tooling.
"""

from __future__ import annotations

import ast
from typing import Protocol

from pi_course.manifest import Manifest
from pi_course.paths import Layout
from pi_course.render import learner_files

LAYERS = {"pi.ai": 0, "pi.agent": 1, "pi.coding_agent": 2, "pi.modes": 3, "pi.agent_main": 4}


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
    """A module of the package that is not part of the agent stack (plumbing or harness)."""
    return (module == "pi" or module.startswith("pi.")) and layer_of(module) is None


def check_layers(layout: Layout, manifest: Manifest, report: Report) -> None:
    """No upward or sideways import in the agent; the MockModel imports no checkpoint."""
    final = learner_files(layout, manifest, manifest.steps[-1].id, False)
    for rel, text in final.items():
        if not rel.startswith("pi/") or not rel.endswith(".py"):
            continue
        own = layer_of(rel.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
        for module in imported_modules(text):
            if module == "pi_course" or module.startswith("pi_course."):
                report.problems.append(f"{rel}: imports {module}, the course tooling")
            if own is None:
                continue
            other = layer_of(module)
            if other is not None and other > own:
                report.problems.append(f"{rel}: imports {module}, a higher layer")
            elif course_side(module):
                report.problems.append(
                    f"{rel}: imports {module}, course plumbing the agent never imports"
                )
    for path in sorted(layout.mock_model.rglob("*.py")):
        imports = imported_modules(path.read_text(encoding="utf-8"))
        if any(m == "pi" or m.startswith("pi.") for m in imports):
            report.problems.append(f"{path.relative_to(layout.root)}: mock_model imports pi")
