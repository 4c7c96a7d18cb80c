"""Skills: a `SKILL.md` whose name and description the model sees up front and whose body
it reads only when a task needs it (progressive disclosure).

Pi's rules: no description (or one that is not text), no skill; a bad name only warns, and a
name that is not text gives way to the folder's; lengths count UTF-16 units.
`disable-model-invocation: true` keeps a skill out of the catalog, not from `/skill:name`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from pi.ai.bounded import read_file
from pi.coding_agent.resources.frontmatter import (Diagnostic, read_markdown, strip_frontmatter,
                                                   warning)
from pi.coding_agent.session.tokens import js_length

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
NAME_CHARS = re.compile(r"[a-z0-9-]+")
SKILL_COMMAND = "/skill:"
REQUIRED = "description is required"
CATALOG_INTRO = "Skills hold instructions for particular kinds of task."
OPEN_WITH = {"read": "read its file with the read tool", "bash": "print its file with bash"}
CATALOG_PATHS = "Paths mentioned inside a skill file are relative to the folder that holds it."


@dataclass(frozen=True)
class Skill:
    """What the agent keeps of a skill: enough to list it and to find its file later."""

    name: str
    description: str
    file_path: Path
    base_dir: Path
    source: str
    disable_model_invocation: bool = False


@dataclass(frozen=True)
class LoadedSkills:
    """The skills that loaded, in discovery order, and every diagnostic on the way."""

    skills: tuple[Skill, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


def validate_name(name: str) -> list[str]:
    """Every rule `name` breaks, in Pi's order (length in UTF-16 units, the allowed characters,
    a hyphen at either end, two hyphens in a row); an empty list means the name is fine."""
    # [exercise 11-skill-name]
    problems: list[str] = []
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
    # [end]


def description_problem(description: object) -> str | None:
    """Why `description` cannot describe a skill (REQUIRED: no skill), or None when it can."""
    if not isinstance(description, str) or not description.strip():
        return REQUIRED
    if js_length(description) > MAX_DESCRIPTION_LENGTH:
        return (f"description exceeds {MAX_DESCRIPTION_LENGTH} characters "
                f"({js_length(description)})")
    return None


def load_skill_file(path: Path, source: str) -> tuple[Skill | None, list[Diagnostic]]:
    """The skill in `path` (None when it cannot be loaded) and every warning about it. A loose
    `.md` (not SKILL.md) that does not parse or has no description is no skill: no warning."""
    declared = path.name == "SKILL.md"
    markdown = read_markdown(path)
    if isinstance(markdown, Diagnostic):
        return None, [markdown] if declared else []
    frontmatter = markdown.frontmatter
    description = frontmatter.get("description")
    problem = description_problem(description)
    if problem == REQUIRED and not declared:
        return None, []
    name = frontmatter.get("name")
    name = name if isinstance(name, str) and name else path.parent.name  # not text: the folder
    problems = ([problem] if problem else []) + validate_name(name)
    diagnostics = [warning(path, text) for text in problems]
    if not isinstance(description, str) or problem == REQUIRED:
        return None, diagnostics
    hidden = frontmatter.get("disable-model-invocation") is True
    return Skill(name, description, path, path.parent, source, hidden), diagnostics


def escape_xml(text: str) -> str:
    """`& < > " '` as entities, the five characters XML reserves."""
    return escape(text, {'"': "&quot;", "'": "&apos;"})


def format_skills_for_prompt(skills: Sequence[Skill], reader: str = "read") -> str:
    """The `<available_skills>` catalog for the system prompt: name, description and file of
    each skill the model may use ('' when there is none), and how `reader` opens a file."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    how = (f"When a task fits a skill's description, {OPEN_WITH[reader]} before you start, "
           "and follow it.")
    lines = ["", "", CATALOG_INTRO, how, CATALOG_PATHS, "", "<available_skills>"]
    for skill in visible:
        lines += ["  <skill>",
                  f"    <name>{escape_xml(skill.name)}</name>",
                  f"    <description>{escape_xml(skill.description)}</description>",
                  f"    <location>{escape_xml(str(skill.file_path))}</location>",
                  "  </skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


class SkillCommandError(ValueError):
    """A `/skill:` command names a skill whose file can no longer be read."""


def expand_skill_command(text: str, skills: Sequence[Skill]) -> str | None:
    """The user message for `/skill:name args`: the skill's body (read now, so an edit takes
    effect at once), then the arguments; None when `text` is no command for a known skill."""
    if not text.startswith(SKILL_COMMAND):
        return None
    name, _, args = text[len(SKILL_COMMAND):].partition(" ")
    skill = next((s for s in skills if name and s.name == name), None)
    if skill is None:
        return None
    try:
        body = strip_frontmatter(read_file(skill.file_path))
    except (OSError, UnicodeDecodeError) as error:
        raise SkillCommandError(f"{skill.file_path}: cannot read skill "
                                f"{skill.name!r}: {error}") from None
    block = (f'<skill name="{escape_xml(skill.name)}" '
             f'location="{escape_xml(str(skill.file_path))}">\n'
             f"Paths in this skill are relative to {skill.base_dir}.\n\n{body}\n</skill>")
    return f"{block}\n\n{args.strip()}" if args.strip() else block
