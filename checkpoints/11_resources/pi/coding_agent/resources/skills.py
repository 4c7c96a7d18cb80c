"""One skill file becomes a `Skill`, or a warning that says why it did not.

A skill is a folder with a `SKILL.md`: a name and a one-line description in the frontmatter,
instructions for the model below. The agent loads only the name, description and location at
start-up; the instructions are read later, when they are needed (progressive disclosure).

The rules are the Agent Skills standard as Pi applies them: a missing description means the
file is not loaded, because the model could never know when to use it; a name that breaks the
naming rules (too long, capitals, stray hyphens, not the folder's name) is only a warning and
the skill still loads. `disable-model-invocation: true` keeps a skill out of the model's
catalog; the user can still run it with `/skill:name`.

Lengths are counted in UTF-16 units, as JavaScript's `String.length` does (an emoji counts
two). A `name` or `description` that is given but is not text (`name: 123`, `name: true`,
`description: [a, b]`) makes Pi's checks throw, so the skill is skipped with one warning and
nothing after it is checked; we skip it the same way, saying why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.ai.bounded import read_file
from pi.coding_agent.resources.diagnostics import Diagnostic, warning
from pi.coding_agent.resources.frontmatter import FrontmatterError, parse_markdown, read_problem
from pi.coding_agent.session.tokens import js_length

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
NAME_CHARS = re.compile(r"[a-z0-9-]+")


@dataclass(frozen=True)
class Skill:
    """What the agent keeps of a skill: enough to list it and to find its file later."""

    name: str
    description: str
    file_path: Path
    base_dir: Path
    source: str
    disable_model_invocation: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "filePath": str(self.file_path), "baseDir": str(self.base_dir),
                "source": self.source, "disableModelInvocation": self.disable_model_invocation}


def validate_name(name: str, parent_dir_name: str) -> list[str]:
    """Every rule `name` breaks, in Pi's order; an empty list means the name is fine."""
    problems: list[str] = []
    if name != parent_dir_name:
        problems.append(f'name "{name}" does not match parent directory "{parent_dir_name}"')
    if js_length(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({js_length(name)})")
    if not NAME_CHARS.fullmatch(name):
        problems.append("name contains invalid characters (must be lowercase a-z, 0-9, "
                        "hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def description_problem(description: object) -> str | None:
    """Why `description` cannot describe a skill, or None when it can."""
    if not given(description) or (isinstance(description, str) and not description.strip()):
        return "description is required"
    if not isinstance(description, str):
        return "description must be text"
    if js_length(description) > MAX_DESCRIPTION_LENGTH:
        return (f"description exceeds {MAX_DESCRIPTION_LENGTH} characters "
                f"({js_length(description)})")
    return None


def given(value: object) -> bool:
    """JavaScript's truthiness, which Pi's `frontmatter.name || dirName` relies on: an empty
    list or mapping counts as given, `0`, `false` and "" do not."""
    if isinstance(value, bool | int | float | str):
        return bool(value)
    return value is not None


def load_skill_file(path: Path, source: str) -> tuple[Skill | None, list[Diagnostic]]:
    """The skill in `path` (None when it cannot be loaded) and every warning about it."""
    try:
        frontmatter = parse_markdown(read_file(path)).frontmatter
    except (OSError, UnicodeDecodeError) as error:
        return None, [warning(path, read_problem(error))]
    except FrontmatterError as error:
        return None, [warning(path, str(error))]
    description = frontmatter.get("description")
    name = frontmatter.get("name") if given(frontmatter.get("name")) else path.parent.name
    problem = description_problem(description)
    diagnostics = [warning(path, problem)] if problem else []
    if given(description) and not isinstance(description, str):
        return None, diagnostics  # Pi's check throws here: no name checks follow
    if not isinstance(name, str):
        return None, [*diagnostics, warning(path, f"name must be text, not {name!r}")]
    diagnostics += [warning(path, text) for text in validate_name(name, path.parent.name)]
    if not isinstance(description, str) or not description.strip():
        return None, diagnostics
    hidden = frontmatter.get("disable-model-invocation") is True
    return Skill(name, description, path, path.parent, source, hidden), diagnostics


@dataclass(frozen=True)
class LoadedSkills:
    """The skills that loaded, in discovery order, and every diagnostic on the way."""

    skills: tuple[Skill, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"skills": [skill.to_json() for skill in self.skills],
                "diagnostics": [diagnostic.to_json() for diagnostic in self.diagnostics]}
