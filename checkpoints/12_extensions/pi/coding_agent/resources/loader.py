"""Everything the agent is told at start-up, loaded in one call.

The runtime (step 13) needs four things before the first prompt: the system prompt, the skills
(for `/skill:` commands), the prompt templates (for `/name` commands) and the problems found on
the way, to show the user. `ResourceLoader` gathers them from three places:

* the agent folder, the user's own (`~/.pi-course/agent` unless told otherwise, never Pi's
  `~/.pi`): `SYSTEM.md`, `APPEND_SYSTEM.md`, `AGENTS.md`, `skills/`, `prompts/`;
* the project's `.pi/` folder, with the same kinds of file, only if the project is trusted;
  the trust policy is asked first, so an untrusted project's `.pi/` is never opened;
* the `AGENTS.md` / `CLAUDE.md` files from the filesystem root down to the working directory.

A project file wins over the user's one of the same kind. The date is injected like the
working directory, so the same folders give the same prompt, byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pi.coding_agent.resources.context_files import (
    ContextFile,
    Unsafe,
    load_context_files,
    read_inside,
)
from pi.coding_agent.resources.diagnostics import Diagnostic
from pi.coding_agent.resources.discovery import PROJECT_DIR, discover_skills
from pi.coding_agent.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
)
from pi.coding_agent.resources.skill_prompt import expand_skill_command
from pi.coding_agent.resources.skills import Skill
from pi.coding_agent.resources.system_prompt import (
    BUILTIN_TOOL_PROMPTS,
    ToolPrompt,
    build_system_prompt,
)
from pi.coding_agent.resources.trust import TrustPolicy, trust_nothing
from pi.coding_agent.tools.sets import DEFAULT_TOOL_NAMES


def default_agent_dir() -> Path:
    """The course's own agent folder; Pi's `~/.pi` is never touched."""
    return Path.home() / ".pi-course" / "agent"


def read_optional(path: Path) -> str | None:
    """The text of `path` without trailing blank space, or None if it cannot be read
    (or must not be: a link out of its folder, a device, a FIFO; see `read_inside`)."""
    try:
        text = read_inside(path, path.parent)
    except Unsafe:
        return None
    return None if text is None else text.rstrip()


def first_file(folders: list[Path], name: str) -> str | None:
    """The text of `name` in the first of `folders` that has it."""
    return next((text for folder in folders
                 if (text := read_optional(folder / name)) is not None), None)


@dataclass(frozen=True)
class Resources:
    """What one load produced; `trusted` says whether the project's `.pi/` was used."""

    system_prompt: str
    skills: tuple[Skill, ...]
    templates: tuple[PromptTemplate, ...]
    context_files: tuple[ContextFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    trusted: bool

    def expand_input(self, text: str) -> str | None:
        """The user message for `/skill:name …` or `/template …`; None for anything else."""
        expanded = expand_skill_command(text, self.skills)
        return expanded if expanded is not None else expand_prompt_template(text, self.templates)


@dataclass(frozen=True)
class ResourceLoader:
    """Where to look and what to tell the model; `load()` reads the files each time."""

    cwd: Path
    today: date
    agent_dir: Path = field(default_factory=default_agent_dir)
    trust: TrustPolicy = trust_nothing
    tool_names: tuple[str, ...] = DEFAULT_TOOL_NAMES
    tool_prompts: Mapping[str, ToolPrompt] = field(default_factory=lambda: BUILTIN_TOOL_PROMPTS)
    skill_paths: tuple[str, ...] = ()
    home: Path | None = None  # for ~/.agents/skills; None leaves it out
    context_ceiling: Path | None = None  # None: climb to the filesystem root, as Pi does
    system_prompt: str | None = None  # a --system-prompt text beats any SYSTEM.md
    append_system_prompt: str | None = None

    def load(self) -> Resources:
        trusted = self.trust(self.cwd)  # before anything inside the project is read
        places = [(self.cwd / PROJECT_DIR, "project")] if trusted else []
        places.append((self.agent_dir, "user"))
        folders = [folder for folder, _ in places]
        skills = discover_skills(self.cwd, self.agent_dir, trusted, self.skill_paths, self.home)
        templates, template_problems = load_prompt_templates(
            [(folder / "prompts", source) for folder, source in places])
        context_problems: list[Diagnostic] = []
        context = load_context_files(self.cwd, self.agent_dir, self.context_ceiling,
                                     context_problems)
        prompt = build_system_prompt(
            tool_names=self.tool_names, today=self.today, cwd=self.cwd,
            custom_prompt=self.system_prompt or first_file(folders, "SYSTEM.md"),
            append=self.append_system_prompt or first_file(folders, "APPEND_SYSTEM.md"),
            context_files=context, skills=skills.skills, tool_prompts=self.tool_prompts)
        return Resources(prompt, skills.skills, templates, context,
                         skills.diagnostics + template_problems + tuple(context_problems),
                         trusted)
