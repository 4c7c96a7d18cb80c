"""Where the application looks for skills, in the order that decides collisions.

Skills come from the project (`.pi/skills` in the working directory, and `.agents/skills` in
it and each folder above it up to the git root), then from the user (`skills` in the agent
folder, and `~/.agents/skills`), then from paths named on the command line. The project comes
first, so a project's `calendar` skill beats the user's (PI-BEHAVIOUR §7.2). The project
folders are read only when the caller says the project is trusted (see `trust.py`).

This is Pi's application path, which collects *every* `SKILL.md` below a skills folder
(`stop_at_skill=False`), not only the first on each path as `load_skills_from_dir` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pi.coding_agent.resources.skill_dirs import skill_files
from pi.coding_agent.resources.skill_registry import (
    SkillRegistry,
    add_explicit_path,
    load_skill_files,
    resolve_skill_path,
)
from pi.coding_agent.resources.skills import LoadedSkills

PROJECT_DIR = ".pi"
SHARED_SKILLS = Path(".agents") / "skills"


def git_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` that holds `.git`, or None."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def project_skill_dirs(cwd: Path) -> list[Path]:
    """`.pi/skills`, then `.agents/skills` from `cwd` up to the git root (or in `cwd` only)."""
    root = git_root(cwd)
    chain = [cwd] if root is None else [cwd, *[p for p in cwd.parents if p.is_relative_to(root)]]
    return [cwd / PROJECT_DIR / "skills", *[folder / SHARED_SKILLS for folder in chain]]


def user_skill_dirs(agent_dir: Path, home: Path | None) -> list[Path]:
    """`skills` in the agent folder, then `~/.agents/skills` when a home folder is given."""
    return [agent_dir / "skills", *([home / SHARED_SKILLS] if home is not None else [])]


def discover_skills(cwd: Path, agent_dir: Path, trusted: bool, skill_paths: Sequence[str] = (),
                    home: Path | None = None) -> LoadedSkills:
    """All skills the application offers, first name wins; project folders only if `trusted`."""
    folders = [(folder, "project") for folder in project_skill_dirs(cwd)] if trusted else []
    folders += [(folder, "user") for folder in user_skill_dirs(agent_dir, home)]
    registry = SkillRegistry()
    files = [(path, source) for folder, source in folders
             for path in skill_files(folder, stop_at_skill=False)]
    load_skill_files(files, registry)
    for raw in skill_paths:
        add_explicit_path(resolve_skill_path(raw, cwd), "path", registry)
    return registry.result()
