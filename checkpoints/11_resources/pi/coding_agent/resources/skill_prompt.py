"""Skills in front of the model: a catalog in the system prompt, bodies on demand.

Progressive disclosure keeps the system prompt small however many skills there are. The model
sees only a catalog: each skill's name, description and file location, in an XML-like block
(Pi's `<available_skills>`, the Agent Skills convention). When a task matches, the model reads
the file with the `read` tool, which is why the catalog is only shown when `read` is enabled.
The user can also pull a skill in directly: `/skill:name args` becomes a user message that
carries the skill's body (frontmatter removed) and then the arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from pi.ai.bounded import read_file
from pi.coding_agent.resources.frontmatter import strip_frontmatter
from pi.coding_agent.resources.skills import Skill

SKILL_COMMAND = "/skill:"
CATALOG_INTRO = (
    "Skills hold instructions for particular kinds of task. When a task fits a skill's",
    "description, read its file with the read tool before you start, and follow it.",
    "Paths mentioned inside a skill file are relative to the folder that holds that file.",
)


def escape_xml(text: str) -> str:
    """`& < > " '` as entities, the five characters XML reserves."""
    return escape(text, {'"': "&quot;", "'": "&apos;"})


def format_skills_for_prompt(skills: Sequence[Skill]) -> str:
    """The catalog block for the system prompt ('' when no skill is visible to the model)."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = ["", "", *CATALOG_INTRO, "", "<available_skills>"]
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


def parse_skill_command(text: str) -> tuple[str, str] | None:
    """('name', 'args') for `/skill:name args`, None for any other text."""
    if not text.startswith(SKILL_COMMAND):
        return None
    name, _, args = text[len(SKILL_COMMAND):].partition(" ")
    return (name, args.strip()) if name else None


def expand_skill_command(text: str, skills: Sequence[Skill]) -> str | None:
    """The user message for `/skill:name args`; None when `text` is no command for a known skill.

    The body is read now, not at start-up, so an edit to the skill file takes effect at once.
    """
    command = parse_skill_command(text)
    skill = next((s for s in skills if command and s.name == command[0]), None)
    if command is None or skill is None:
        return None
    try:
        body = strip_frontmatter(read_file(skill.file_path))
    except (OSError, UnicodeDecodeError) as error:
        raise SkillCommandError(f"{skill.file_path}: cannot read skill "
                                f"{skill.name!r}: {error}") from None
    block = (f'<skill name="{escape_xml(skill.name)}" '
             f'location="{escape_xml(str(skill.file_path))}">\n'
             f"Paths in this skill are relative to {skill.base_dir}.\n\n{body}\n</skill>")
    return f"{block}\n\n{command[1]}" if command[1] else block
