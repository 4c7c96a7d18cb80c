"""Everything the agent is told at start-up, loaded in one call: the agent folder
(`~/.pi-course/agent`, never Pi's `~/.pi`), the project's `.pi/` (which wins, if an injected
trust policy says so before anything in it is opened) and the `AGENTS.md` files."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pi.coding_agent.resources.context_files import ContextFile, load_context_files, read_inside
from pi.coding_agent.resources.discovery import (PROJECT_DIR, discover_skills,
                                                 load_prompt_templates)
from pi.coding_agent.resources.frontmatter import Diagnostic
from pi.coding_agent.resources.prompt_templates import PromptTemplate, expand_prompt_template
from pi.coding_agent.resources.skills import Skill, expand_skill_command
from pi.coding_agent.resources.system_prompt import (BUILTIN_TOOL_PROMPTS, ToolPrompt,
                                                     system_prompt_sections)
from pi.coding_agent.tools.sets import DEFAULT_TOOL_NAMES

TrustPolicy = Callable[[Path], bool]


def trust_nothing(project: Path) -> bool:
    """The safe default: no project is trusted unless the application says so."""
    return False


def trust_everything(project: Path) -> bool:
    """Pi's behaviour: every working directory's `.pi/` is used."""
    return True


def default_agent_dir() -> Path:
    """The course's own agent folder; Pi's `~/.pi` is never touched."""
    return Path.home() / ".pi-course" / "agent"


def first_file(folders: list[Path], name: str) -> str | None:
    """The text (trailing space removed) of `name` in the first of `folders` that has one
    that may be read (no link out of its folder, no device, no FIFO)."""
    texts = (read_inside(folder / name, folder) for folder in folders)
    return next((text.rstrip() for text in texts if text is not None), None)


@dataclass(frozen=True)
class Resources:
    """What one load produced; `trusted` says whether the project's `.pi/` was used."""

    sections: dict[str, str]  # the system prompt by section, as a session records it
    skills: tuple[Skill, ...]
    templates: tuple[PromptTemplate, ...]
    context_files: tuple[ContextFile, ...]
    diagnostics: tuple[Diagnostic, ...]
    trusted: bool

    @property
    def system_prompt(self) -> str:
        return "\n\n".join(self.sections.values())

    def expand_input(self, text: str) -> str | None:
        """The user message for `/skill:name …` or `/template …`; None for anything else."""
        expanded = expand_skill_command(text, self.skills)
        return expanded if expanded is not None else expand_prompt_template(text, self.templates)


@dataclass(frozen=True)
class ResourceLoader:
    """Where to look and what to tell the model; `load()` reads the files each time."""

    cwd: Path
    agent_dir: Path = field(default_factory=default_agent_dir)
    trust: TrustPolicy = trust_nothing
    tool_names: tuple[str, ...] = DEFAULT_TOOL_NAMES
    tool_prompts: Mapping[str, ToolPrompt] = field(default_factory=lambda: BUILTIN_TOOL_PROMPTS)
    skill_paths: tuple[str, ...] = ()
    context_ceiling: Path | None = None  # None: climb to the filesystem root, as Pi does
    system_prompt: str | None = None  # a --system-prompt text beats any SYSTEM.md

    def load(self) -> Resources:
        trusted = self.trust(self.cwd)  # before anything inside the project is read
        places = [(self.cwd / PROJECT_DIR, "project")] if trusted else []
        places.append((self.agent_dir, "user"))
        folders = [folder for folder, _ in places]
        skills = discover_skills(self.cwd, self.agent_dir, trusted, self.skill_paths)
        templates, template_problems = load_prompt_templates(
            [(folder / "prompts", source) for folder, source in places])
        context_problems: list[Diagnostic] = []
        context = load_context_files(self.cwd, self.agent_dir, self.context_ceiling,
                                     context_problems)
        sections = system_prompt_sections(
            tool_names=self.tool_names, cwd=self.cwd,
            custom_prompt=self.system_prompt or first_file(folders, "SYSTEM.md"),
            append=first_file(folders, "APPEND_SYSTEM.md"),
            context_files=context, skills=skills.skills, tool_prompts=self.tool_prompts)
        return Resources(sections, skills.skills, templates, context,
                         skills.diagnostics + template_problems + tuple(context_problems), trusted)
