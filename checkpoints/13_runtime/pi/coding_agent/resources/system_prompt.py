"""The system prompt, in Pi's order from general to specific: the base prompt (who the agent
is, a line per enabled tool, their guidelines) or a `SYSTEM.md` instead; `APPEND_SYSTEM.md`;
each `AGENTS.md` under its path; the skills catalog (only if `read` is enabled); last the
injected date and working directory. Guidelines can depend on the whole tool set ("report in
plain text" only when there is no `write`): the wording is the course's, the structure Pi's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pi.agent.tools import AnyTool
from pi.coding_agent.resources.context_files import ContextFile
from pi.coding_agent.resources.skills import Skill, format_skills_for_prompt

INTRO = ("You are a coding assistant working in the user's project through the tools below. "
         "You read files, run commands, edit code and write new files on the user's behalf.")
OTHER_TOOLS = "Tools not listed here may also be available; their descriptions say what they do."
CONTEXT_HEADING = "# Project Context"
CONTEXT_INTRO = "Instructions from the project and the user; follow them:"
GENERAL_GUIDELINES = ("Keep your answers short", "Always name the files you work on by their path")


@dataclass(frozen=True)
class Guideline:
    """Advice a tool brings, if the tools it `requires` are all there and none it `excludes`."""

    text: str
    requires: frozenset[str] = frozenset()
    excludes: frozenset[str] = frozenset()

    def applies(self, enabled: frozenset[str]) -> bool:
        return self.requires <= enabled and not self.excludes & enabled


@dataclass(frozen=True)
class ToolPrompt:
    """What the system prompt says about one tool: its list line and its guidelines."""

    line: str
    guidelines: tuple[Guideline, ...] = ()


REPORT_IN_TEXT = "Report what you changed in plain text; do not print files with cat or bash"
# The order of this table is the order in which guidelines appear.
BUILTIN_TOOL_PROMPTS: Mapping[str, ToolPrompt] = {
    "bash": ToolPrompt("run a shell command (tests, builds, git, ls, rg, find)", (
        Guideline("Use bash to list, find and search files (ls, rg, find)"),)),
    "read": ToolPrompt("show a file's contents, a window of lines at a time", (
        Guideline("Look at a file with read before you edit it, never with cat or sed",
                  requires=frozenset({"edit"})),)),
    "edit": ToolPrompt("replace exact pieces of text in a file", (
        Guideline("Give edit the old text exactly as it stands in the file"),
        Guideline(REPORT_IN_TEXT, excludes=frozenset({"write"})))),
    "write": ToolPrompt("create a file, or replace everything in it", (
        Guideline("Use write for new files and complete rewrites only"),
        Guideline(REPORT_IN_TEXT))),
}


def tool_prompts_for(tools: Iterable[AnyTool]) -> dict[str, ToolPrompt]:
    """The built-in table, plus each other tool's `prompt_snippet` (its list line) and
    `prompt_guidelines`, if it declares them."""
    prompts = dict(BUILTIN_TOOL_PROMPTS)
    for tool in tools:
        snippet = getattr(tool, "prompt_snippet", None)
        if tool.name not in prompts and snippet:
            guidelines = tuple(Guideline(text) for text in getattr(tool, "prompt_guidelines", ()))
            prompts[tool.name] = ToolPrompt(str(snippet), guidelines)
    return prompts


def guidelines_for(tool_names: Sequence[str], prompts: Mapping[str, ToolPrompt]) -> list[str]:
    """Guidelines of the enabled tools, table order first, without repeats, general ones last."""
    enabled = frozenset(tool_names)
    order = [*[n for n in prompts if n in enabled], *[n for n in tool_names if n not in prompts]]
    texts = [g.text for name in order if name in prompts
             for g in prompts[name].guidelines if g.applies(enabled)]
    return list(dict.fromkeys([*texts, *GENERAL_GUIDELINES]))


def base_prompt(tool_names: Sequence[str], prompts: Mapping[str, ToolPrompt]) -> str:
    """The built-in part: who the agent is, its tools, and how to use them."""
    tools = [f"- {name}: {prompts[name].line}" if name in prompts else f"- {name}"
             for name in tool_names]
    guidelines = [f"- {text}" for text in guidelines_for(tool_names, prompts)]
    return "\n".join([INTRO, "", "Available tools:", *(tools or ["(none)"]), "",
                      OTHER_TOOLS, "", "Guidelines:", *guidelines])


def context_section(files: Sequence[ContextFile]) -> str:
    blocks = "".join(f"## {file.path}\n\n{file.content}\n\n" for file in files)
    return f"\n\n{CONTEXT_HEADING}\n\n{CONTEXT_INTRO}\n\n{blocks}" if files else ""


def build_system_prompt(*, tool_names: Sequence[str], today: date, cwd: Path,
                        custom_prompt: str | None = None, append: str | None = None,
                        context_files: Sequence[ContextFile] = (), skills: Sequence[Skill] = (),
                        tool_prompts: Mapping[str, ToolPrompt] = BUILTIN_TOOL_PROMPTS) -> str:
    """The whole system prompt; `custom_prompt` (a SYSTEM.md) replaces only the base part."""
    prompt = custom_prompt if custom_prompt else base_prompt(tool_names, tool_prompts)
    if append:
        prompt += f"\n\n{append}"
    prompt += context_section(context_files)
    if "read" in tool_names:
        prompt += format_skills_for_prompt(skills)
    prompt += f"\nCurrent date: {today.isoformat()}"
    return prompt + f"\nCurrent working directory: {cwd.as_posix()}"
