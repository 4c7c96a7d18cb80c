"""Find extension files, check trust, import them, commit their registrations.

A project's `.pi/extensions` loads only when trusted; a refused file is one diagnostic line."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi.agent.tools import AnyTool
from pi.ai.bounded import what_is_at
from pi.coding_agent.extensions.api import Command, ExtensionAPI, ExtensionUI, NoUI
from pi.coding_agent.resources.loader import TrustPolicy, trust_nothing


def extension_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if p.is_file() and not p.name.startswith("_"))


def discover(agent_dir: Path | None, cwd: Path, paths: Sequence[Path] = (),
             is_trusted: TrustPolicy = trust_nothing) -> tuple[list[Path], list[str]]:
    """The files to load in load order (user, project, explicit), and a note per skip."""
    found = extension_files(agent_dir / "extensions") if agent_dir else []
    notes: list[str] = []
    project = extension_files(cwd / ".pi" / "extensions") if agent_dir else []
    if project and is_trusted(cwd):
        found += project
    elif project:
        notes.append(f"{cwd / '.pi' / 'extensions'}: {len(project)} extension(s) not loaded: "
                     f"the project {cwd} is not trusted")
    for path in (cwd / p for p in paths):
        if (kind := what_is_at(path)) == "a file":
            found.append(path)
        else:
            notes.append(f"{path}: no such extension file" if kind == "nothing" else
                         f"{path}: is {kind}, not an extension file")
    return list(dict.fromkeys(p.resolve() for p in found)), notes


@dataclass
class LoadedExtensions:
    """The extensions that loaded, in order, and one line for each that did not."""

    extensions: list[ExtensionAPI] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)

    def tools(self) -> list[AnyTool]:
        return [tool for ext in self.extensions for tool in ext.tools]

    def commands(self) -> dict[str, Command]:
        return {command.name: command for ext in self.extensions for command in ext.commands}


def load_extensions(paths: Sequence[Path], cwd: Path, ui: ExtensionUI | None = None,
                    core_tools: Collection[str] = ()) -> LoadedExtensions:
    """Load each file in turn; a refused one is a diagnostic, never an exception."""
    loaded = LoadedExtensions()
    for path in paths:
        problem = load_one(path, cwd, ui or NoUI(), core_tools, loaded)
        if problem is not None:
            loaded.diagnostics.append(f"{problem[0]}: extension not loaded: {problem[1]}")
            sys.modules.pop(module_name(path), None)
    return loaded


def load_one(path: Path, cwd: Path, ui: ExtensionUI, core_tools: Collection[str],
             loaded: LoadedExtensions) -> tuple[str, str] | None:
    """Import the file and run its `extension(api)`; (where, why) when it is refused. All or
    nothing: what the factory staged is added only if it returned without a problem."""
    try:
        factory = getattr(import_by_path(path), "extension", None)
    except (Exception, SystemExit) as error:
        return failure(path, "import failed", error)
    if not callable(factory):
        return str(path), "no extension(api) function"
    api = ExtensionAPI(path, ui, cwd, {*core_tools, *(t.name for t in loaded.tools())},
                       loaded.commands())
    try:
        returned = factory(api)
    except (Exception, SystemExit) as error:
        return failure(path, "factory failed", error)
    if inspect.iscoroutine(returned):
        returned.close()
        return str(path), "the factory must be a plain (not async) function"
    if api.problems:
        return str(path), api.problems[0]
    loaded.extensions.append(api)
    return None


def module_name(path: Path) -> str:
    """Unique per file, the same on every run: a digest of the path."""
    return "_pi_extension_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]


def import_by_path(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(module_name(path), path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pydantic look their module up here
    spec.loader.exec_module(module)
    return module


def failure(path: Path, stage: str, error: BaseException) -> tuple[str, str]:
    """`file:line` of the innermost frame in the extension, and what failed and why."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    line = error.lineno if isinstance(error, SyntaxError) else None
    line = line or (frames[-1].lineno if frames else None)
    message = str(error).splitlines()[0] if str(error) else ""
    return (f"{path}:{line}" if line else str(path),
            f"{stage}: {type(error).__name__}: {message}".rstrip())
