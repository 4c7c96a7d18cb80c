"""Find the skill files in a skills folder, the two ways Pi does it.

A skills folder holds one folder per skill (`calendar/SKILL.md`, maybe with scripts and
references next to it), folders that group skills (`team/review/SKILL.md`), and loose `.md`
files at the top, each one skill. Hidden folders and `node_modules` are skipped, ignore files
(`.gitignore`, `.ignore`, `.fdignore`) are honoured, symlinked folders are followed.

`load_skills_from_dir` stops at the first `SKILL.md` on each path down: whatever lies below it
belongs to that skill. Pi's application start-up collects differently and takes *every*
`SKILL.md` at any depth, so a `SKILL.md` inside another skill's folder becomes a skill of its
own (PI-BEHAVIOUR §12.13). Both are here, as Pi has both: `stop_at_skill` says which.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from pi.coding_agent.resources.skills import LoadedSkills, load_skill_file
from pi.coding_agent.tools.walk import Rules, is_ignored

SKILL_FILE = "SKILL.md"
IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")


def ignore_rules(folder: Path) -> Rules:
    """The rules of the ignore files in `folder`, each relative to `folder`."""
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            lines += (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return [(folder, pathspec.GitIgnoreSpec.from_lines(lines))] if lines else []


def sorted_names(folder: Path) -> list[str]:
    """Names in `folder`, bytewise like Node's readdir; an unreadable folder is empty."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def skill_files(folder: Path, stop_at_skill: bool) -> Iterator[Path]:
    """Every candidate skill file below `folder`, in a stable depth-first order."""
    yield from _walk(folder, stop_at_skill, top=True, rules=[], seen=set())


def _walk(folder: Path, stop_at_skill: bool, top: bool, rules: Rules, seen: set[Path]) -> (
    Iterator[Path]
):
    real = folder.resolve()
    if real in seen:  # a symlink loop: this folder is being walked already
        return
    seen = seen | {real}
    names = sorted_names(folder)
    if stop_at_skill and SKILL_FILE in names and (folder / SKILL_FILE).is_file():
        yield folder / SKILL_FILE
        return
    rules = rules + ignore_rules(folder)
    for name in names:
        path = folder / name
        if name.startswith(".") or name == "node_modules":
            continue
        is_dir, is_file = path.is_dir(), path.is_file()  # both follow symlinks
        if (not is_dir and not is_file) or is_ignored(path, is_dir, rules):
            continue
        if is_dir:
            yield from _walk(path, stop_at_skill, False, rules, seen)
        elif (top and name.endswith(".md")) or (not stop_at_skill and name == SKILL_FILE):
            yield path


def load_skills_from_dir(folder: Path, source: str) -> LoadedSkills:
    """Pi's `loadSkillsFromDir`: the skills of one folder, no collision check."""
    skills, diagnostics = [], []
    for path in skill_files(folder, stop_at_skill=True):
        skill, found = load_skill_file(path, source)
        diagnostics += found
        if skill is not None:
            skills.append(skill)
    return LoadedSkills(tuple(skills), tuple(diagnostics))
