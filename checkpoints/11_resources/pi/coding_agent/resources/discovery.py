"""Where skills and prompt templates come from: the folders Pi looks in (skill folders walked
the two ways Pi walks them), one name each, the first one found winning (a later one is a
collision naming both files)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pathspec

from pi.ai.bounded import MAX_DEPTH, read_bytes
from pi.coding_agent.resources.frontmatter import Diagnostic, first_wins, warning
from pi.coding_agent.resources.prompt_templates import PromptTemplate, load_template
from pi.coding_agent.resources.skills import LoadedSkills, Skill, load_skill_file

SKILL_FILE = "SKILL.md"
IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")
PROJECT_DIR = ".pi"
SHARED_SKILLS = Path(".agents") / "skills"
MAX_STARS = 3  # an ignore pattern with more `*` is skipped: its regex can backtrack for hours
Rules = list[tuple[Path, pathspec.GitIgnoreSpec]]  # (folder of the ignore file, its rules)


def load_rules(folder: Path) -> tuple[Rules, list[Diagnostic]]:
    """The rules of the ignore files in `folder` (a missing or irregular one has none), and a
    warning for each file whose patterns with more than MAX_STARS `*` are skipped."""
    lines: list[str] = []
    warned: list[Diagnostic] = []
    for name in IGNORE_FILES:
        # not there, not a file (a FIFO is never read), unreadable: no rules
        with contextlib.suppress(OSError):
            found = read_bytes(folder / name).decode("utf-8", errors="replace").splitlines()
            kept = [line for line in found if line.startswith("#") or line.count("*") <= MAX_STARS]
            lines += kept
            if len(kept) < len(found):  # the file's one warning
                warned.append(warning(folder / name, f"patterns with over {MAX_STARS} '*' skipped"))
    return [(folder, pathspec.GitIgnoreSpec.from_lines(lines))] if lines else [], warned


def is_ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    """The verdict of the deepest rule that speaks about `path`; no rule means not ignored."""
    verdict: bool | None = None
    for base, spec in rules:  # shallow to deep, so deeper files have the last word
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        include = spec.check_file(relative).include
        if include is not None:
            verdict = include
    return bool(verdict)


def skill_files(folder: Path, stop_at_skill: bool, seen: set[Path], top: bool = True,
                rules: Rules | None = None, depth: int = 0) -> Iterator[Path | Diagnostic]:
    """Every candidate skill file below `folder`, depth first, names in bytewise order: skill
    folders (`calendar/SKILL.md`) and loose `.md` files at the top. Hidden folders and
    `node_modules` are skipped, ignore files honoured, symlinked folders followed once each.
    `stop_at_skill` (Pi's `loadSkillsFromDir`): nothing below a `SKILL.md` is looked at."""
    real = folder.resolve()
    if real in seen or depth > MAX_DEPTH:  # walked before (a loop, 2**n paths), or too deep
        return
    seen.add(real)
    try:
        names = sorted(os.listdir(folder))  # bytewise, like Node's readdir
    except (FileNotFoundError, NotADirectoryError):
        names = []
    except OSError as error:  # mode 000, say: a warning, not silence
        yield warning(folder, f"cannot be read ({error.strerror or error})")
        return
    if stop_at_skill and SKILL_FILE in names and (folder / SKILL_FILE).is_file():
        yield folder / SKILL_FILE
        return
    found, skipped = load_rules(folder)
    yield from skipped
    rules = [*(rules or []), *found]
    for name in names:
        path = folder / name
        if name.startswith(".") or name == "node_modules":
            continue
        is_dir, is_file = path.is_dir(), path.is_file()  # both follow symlinks
        if (not is_dir and not is_file) or is_ignored(path, is_dir, rules):
            continue
        if is_dir:
            yield from skill_files(path, stop_at_skill, seen, False, rules, depth + 1)
        elif (top and name.endswith(".md")) or (not stop_at_skill and name == SKILL_FILE):
            yield path


def load_files(paths: Iterable[Path | Diagnostic], source: str) -> LoadedSkills:
    """The skills in `paths` that load, and every warning about them, in order."""
    skills, diagnostics = [], []
    for path in paths:
        skill, found = load_skill_file(path, source) if isinstance(path, Path) else (None, [path])
        diagnostics += found
        if skill is not None:
            skills.append(skill)
    return LoadedSkills(tuple(skills), tuple(diagnostics))


def load_skills_from_dir(folder: Path, source: str) -> LoadedSkills:
    """Pi's `loadSkillsFromDir`: the skills of one folder, no collision check."""
    return load_files(skill_files(folder, True, set()), source)


def load_path(path: Path, source: str) -> LoadedSkills:
    """One path named by the user: a folder of skills, or one `.md` file."""
    if not path.exists():
        return LoadedSkills((), (warning(path, "skill path does not exist"),))
    if path.is_dir():
        return load_skills_from_dir(path, source)
    if path.is_file() and path.name.endswith(".md"):
        return load_files([path], source)
    return LoadedSkills((), (warning(path, "skill path is not a markdown file"),))


def project_skill_dirs(cwd: Path) -> list[Path]:
    """`.pi/skills`, then `.agents/skills` from `cwd` up to the git root (or in `cwd` only)."""
    root = next((p for p in (cwd, *cwd.parents) if (p / ".git").exists()), None)
    chain = [cwd] if root is None else [cwd, *[p for p in cwd.parents if p.is_relative_to(root)]]
    return [cwd / PROJECT_DIR / "skills", *[folder / SHARED_SKILLS for folder in chain]]


def discover_skills(cwd: Path, agent_dir: Path, trusted: bool, skill_paths: Sequence[str] = (),
                    home: Path | None = None) -> LoadedSkills:
    """Every skill the application offers, first name wins: the project's folders (only if
    `trusted`), the user's (`skills` in the agent folder, `~/.agents/skills`), then the paths
    given. Unlike `load_skills_from_dir`, every `SKILL.md` at any depth counts, as in Pi."""
    folders = [(folder, "project") for folder in project_skill_dirs(cwd)] if trusted else []
    folders.append((agent_dir / "skills", "user"))
    if home is not None:
        folders.append((home / SHARED_SKILLS, "user"))
    loads = [load_files(skill_files(folder, False, set()), source)
             for folder, source in folders]
    for raw in skill_paths:  # `~` expanded, relative to `cwd`, symlinks left as they are
        path = Path(os.path.normpath(cwd / os.path.expanduser(raw.strip())))
        loads.append(load_path(path, "path"))
    found: list[Skill | Diagnostic] = []
    for loaded in loads:
        found += [*loaded.diagnostics, *loaded.skills]
    return LoadedSkills(*first_wins("skill", found, same_file_once=True))


def load_prompt_templates(folders: Sequence[tuple[Path, str]]
                          ) -> tuple[tuple[PromptTemplate, ...], tuple[Diagnostic, ...]]:
    """The `*.md` files of each (folder, source), in order; the first of a name wins."""
    found = [load_template(path, source) for folder, source in folders
             for path in sorted(folder.glob("*.md")) if path.is_file()]
    return first_wins("prompt", found)
