"""Skills from several places, one name each: the first one found wins.

A user has skills of their own, a project brings more, and a command line can name a few.
Two of them may share a name; the model must still see each name once, or it could not say
which one it means. The rule is Pi's: whoever is registered first keeps the name, and each
later one is reported as a `collision` naming both files, so the user sees what was hidden.
A file reached twice (the same folder given twice, or through a symlink) is the same skill,
not a collision, and is skipped without a word. Collisions are listed after all warnings.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from pi.coding_agent.resources.diagnostics import Diagnostic, collision, warning
from pi.coding_agent.resources.skill_dirs import load_skills_from_dir
from pi.coding_agent.resources.skills import LoadedSkills, Skill, load_skill_file


class SkillRegistry:
    """Skills by name, first come first served, with the diagnostics of everything added."""

    def __init__(self) -> None:
        self._by_name: dict[str, Skill] = {}
        self._real_paths: set[str] = set()
        self._warnings: list[Diagnostic] = []
        self._collisions: list[Diagnostic] = []

    def add(self, loaded: LoadedSkills) -> None:
        self._warnings += loaded.diagnostics
        for skill in loaded.skills:
            self.add_skill(skill)

    def add_skill(self, skill: Skill) -> None:
        real = os.path.realpath(skill.file_path)
        if real in self._real_paths:
            return
        winner = self._by_name.get(skill.name)
        if winner is not None:
            self._collisions.append(
                collision("skill", skill.name, winner.file_path, skill.file_path))
            return
        self._by_name[skill.name] = skill
        self._real_paths.add(real)

    def warn(self, path: Path, message: str) -> None:
        self._warnings.append(warning(path, message))

    def result(self) -> LoadedSkills:
        return LoadedSkills(tuple(self._by_name.values()),
                            tuple(self._warnings + self._collisions))


def load_skill_files(paths: Iterable[tuple[Path, str]], registry: SkillRegistry) -> None:
    """Load each (file, source) pair into `registry`, in order."""
    for path, source in paths:
        skill, diagnostics = load_skill_file(path, source)
        registry.add(LoadedSkills((skill,) if skill else (), tuple(diagnostics)))


def resolve_skill_path(raw: str, cwd: Path) -> Path:
    """`~` expanded, a relative path taken from `cwd`, nothing resolved through symlinks."""
    path = Path(os.path.expanduser(raw.strip()))
    return path if path.is_absolute() else Path(os.path.normpath(cwd / path))


def add_explicit_path(path: Path, source: str, registry: SkillRegistry) -> None:
    """One path named by the user: a folder of skills, or one `.md` file."""
    if not path.exists():
        registry.warn(path, "skill path does not exist")
    elif path.is_dir():
        registry.add(load_skills_from_dir(path, source))
    elif path.is_file() and path.name.endswith(".md"):
        load_skill_files([(path, source)], registry)
    else:
        registry.warn(path, "skill path is not a markdown file")


def load_skills(cwd: Path, agent_dir: Path, skill_paths: Sequence[str] = (),
                include_defaults: bool = True) -> LoadedSkills:
    """Pi's `loadSkills`: the user's and the project's folders (if asked), then each path.

    No trust check happens here: the application reaches project skills only through
    `discovery.discover_skills`, which asks first.
    """
    registry = SkillRegistry()
    user_dir, project_dir = agent_dir / "skills", cwd / ".pi" / "skills"
    if include_defaults:
        registry.add(load_skills_from_dir(user_dir, "user"))
        registry.add(load_skills_from_dir(project_dir, "project"))
    for raw in skill_paths:
        path = resolve_skill_path(raw, cwd)
        source = "path"
        if not include_defaults and path.is_relative_to(user_dir):
            source = "user"
        elif not include_defaults and path.is_relative_to(project_dir):
            source = "project"
        add_explicit_path(path, source, registry)
    return registry.result()
