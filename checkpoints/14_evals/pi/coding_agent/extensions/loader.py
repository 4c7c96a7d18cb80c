"""Find extension files, check trust, import them, commit their registrations.

A project's `.pi/extensions` loads only when trusted; a refused file is one diagnostic line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import re
import sys
import traceback
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from pi.ai.bounded import what_is_at
from pi.agent.tools import AnyTool
from pi.coding_agent.extensions.api import Command, Extension, ExtensionAPI, ExtensionUI, NoUI
from pi.coding_agent.resources.loader import TrustPolicy, trust_nothing

FACTORY_NAMES = ("extension", "setup")


def extension_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if p.is_file() and not p.name.startswith("_"))


def discover(agent_dir: Path, cwd: Path, paths: Sequence[Path] = (),
             is_trusted: TrustPolicy = trust_nothing) -> tuple[list[Path], list[str]]:
    """The files to load in load order (user, project, explicit), and a note per skip."""
    found, notes = extension_files(agent_dir / "extensions"), list[str]()
    project = extension_files(cwd / ".pi" / "extensions")
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
    unique = list(dict.fromkeys(p.resolve() for p in found))
    return unique, notes


@dataclass
class LoadedExtensions:
    """The extensions that loaded, in order, and one line for each that did not."""

    extensions: list[Extension] = field(default_factory=list)
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
            loaded.diagnostics.append(problem)
            sys.modules.pop(module_name(path), None)
    return loaded


def load_one(path: Path, cwd: Path, ui: ExtensionUI, core_tools: Collection[str],
             loaded: LoadedExtensions) -> str | None:
    try:
        module = import_by_path(path)
    except (Exception, SystemExit) as error:
        return failure_line(path, "import failed", error)
    factories = [getattr(module, name) for name in FACTORY_NAMES if hasattr(module, name)]
    factory = next((f for f in factories if callable(f)), None)
    if factory is None:
        return f"{path}: extension not loaded: no extension(api) or setup(api) function"
    taken = {*core_tools, *(tool.name for tool in loaded.tools())}
    api = ExtensionAPI(path, ui, cwd, taken, loaded.commands())
    try:
        returned = factory(api)
    except (Exception, SystemExit) as error:
        return failure_line(path, "factory failed", error)
    return commit(api, returned, loaded)


def commit(api: ExtensionAPI, returned: object, loaded: LoadedExtensions) -> str | None:
    """All or nothing: add everything the factory staged, or nothing and say why."""
    if inspect.iscoroutine(returned):
        returned.close()
        return f"{api.path}: extension not loaded: the factory must be a plain (not async) function"
    if api.problems:
        return f"{api.path}: extension not loaded: {api.problems[0]}"
    loaded.extensions.append(api.commit())
    return None


def module_name(path: Path) -> str:
    """Unique per file, the same on every run: a digest of the path plus a readable stem."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    return f"_pi_extension_{digest}_{stem}"


def import_by_path(path: Path) -> ModuleType:
    name = module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic look their module up here
    spec.loader.exec_module(module)
    return module


def failure_line(path: Path, stage: str, error: BaseException) -> str:
    """One line: file:line of the innermost frame in the extension, what failed, and why."""
    line = error.lineno if isinstance(error, SyntaxError) else None
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    line = line or (frames[-1].lineno if frames else None)
    where = f"{path}:{line}" if line else str(path)
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{where}: extension not loaded: {stage}: {type(error).__name__}: {message}".rstrip()
