"""A fresh scratch folder per run: the fixture copied, an empty `sessions/`, and `case.json`.

Nothing leaks between runs; the folder's name comes from an injected factory (tests choose it).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.ai.messages import json_text
from course.evals.cases import Case

ScratchFactory = Callable[[], Path]
Snapshot = dict[str, bytes]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


def temporary_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="pi-eval-"))


@dataclass(frozen=True)
class Prepared:
    root: Path
    workspace: Path
    sessions: Path
    case_file: Path


def driver_case(case: Case, model: str | None = None) -> dict[str, Any]:
    """The case as the driver reads it (contract 1); `model` replaces the MockModel script."""
    data = case.spec.model_dump(mode="json", include={"id", "prompt", "tools", "actions",
                                                      "max_turns"}, exclude_defaults=True)
    if model or case.spec.model:
        data["model"] = model or case.spec.model
    else:
        data["script"] = case.script
    return {**data, **case.spec.setup}


def prepare(case: Case, make_folder: ScratchFactory = temporary_folder,
            model: str | None = None) -> Prepared:
    """Make the run's folder; on failure remove what was made and raise OSError."""
    root = make_folder()
    try:
        workspace, sessions = root / "workspace", root / "sessions"
        if case.workspace is not None:
            shutil.copytree(case.workspace, workspace, symlinks=True, ignore=IGNORED)
        else:
            workspace.mkdir()
        sessions.mkdir()
        if case.session is not None:
            shutil.copy2(case.session, sessions / case.session.name)
        case_file = root / "case.json"
        text = json_text(driver_case(case, model), indent=2, sort_keys=True)
        case_file.write_text(text + "\n", encoding="utf-8")
        return Prepared(root, workspace, sessions, case_file)
    except OSError:
        shutil.rmtree(root, ignore_errors=True)
        raise


def dispose(prepared: Prepared) -> None:
    """Remove the run's folder; raises OSError if it could not be removed."""
    shutil.rmtree(prepared.root)


def read_declared(workspace: Path, names: tuple[str, ...]) -> dict[str, str | None]:
    """The declared files after the run (None if missing); a name that leaves the workspace
    is refused with ValueError: a judge reads the agent's work, never the harness's machine."""
    root = workspace.resolve()
    files: dict[str, str | None] = {}
    for name in names:
        path = (root / name).resolve()
        if not path.is_relative_to(root):
            raise ValueError(f"declared file {name!r} is outside the workspace")
        files[name] = path.read_text(encoding="utf-8") if path.is_file() else None
    return files


def snapshot(template: Path | None) -> Snapshot:
    """Every file of a template, by relative path (templates are small fixtures)."""
    if template is None or not template.is_dir():
        return {}
    return {path.relative_to(template).as_posix(): path.read_bytes()
            for path in sorted(template.rglob("*")) if path.is_file() and not path.is_symlink()
            and "__pycache__" not in path.parts}


def restore(template: Path | None, before: Snapshot) -> list[str]:
    """Put the template back as `before` recorded it; the paths that had changed."""
    if template is None:
        return []
    now = snapshot(template)
    changed = sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))
    for name in changed:
        path = template / name
        if name in before:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(before[name])
        else:
            path.unlink()
    return changed
