"""The system prompt, in Pi 1.6's shape: named sections from general to specific, each after
the first framed as `<name>…</name>`, joined by blank lines. First who the agent is (or a
`SYSTEM.md` instead, which also drops the tool list and the rules); then `tools`, a line per
enabled tool; `rules`, their guidelines; `addendum`, `APPEND_SYSTEM.md`; `project_context`,
each `AGENTS.md` under its path; `skills`, the catalog, when a tool can open a skill's file;
last `cwd`. The wording is the course's, the structure Pi's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pi.agent.tools import AnyTool
from pi.ai import SystemMessage, Tool
from pi.ai.messages import ToolReference
from pi.ai.transcript import replay
from pi.coding_agent.messages import AnyMessage
from pi.coding_agent.resources.context_files import ContextFile
from pi.coding_agent.resources.skills import Skill, format_skills_for_prompt

INTRO = ("You are a coding assistant working in the user's project through the tools below. "
         "You read files, run commands, edit code and write new files on the user's behalf.")
OTHER_TOOLS = "Tools not listed here may also be available; their descriptions say what they do."
CONTEXT_INTRO = "Instructions from the project and the user; follow them:"
SEARCH_WITH_BASH = "Use bash to list, find and search files (ls, rg, find)"
SEARCH_TOOLS = frozenset({"grep", "find", "ls"})  # with any of these, bash needs no such rule
GENERAL_GUIDELINES = ("Keep your answers short", "Always name the files you work on by their path")


@dataclass(frozen=True)
class ToolPrompt:
    """What the system prompt says about one tool: its line in `tools`, its `rules`."""

    line: str  # '' leaves the tool out of the list
    guidelines: tuple[str, ...] = ()


BUILTIN_TOOL_PROMPTS: Mapping[str, ToolPrompt] = {
    "read": ToolPrompt("show a file's contents, a window of lines at a time", (
        "Look at files with read, never with cat or sed",)),
    "bash": ToolPrompt("run a shell command (tests, builds, git, ls, rg, find)"),
    "edit": ToolPrompt("replace exact pieces of text in a file, several in one call", (
        "Use edit for targeted changes, all changes to one file in one call",
        "Give each old text exactly as it stands in the file, found once; keep it short")),
    "write": ToolPrompt("create a file, or replace everything in it", (
        "Use write for new files and complete rewrites only",)),
}


def tool_prompts_for(tools: Iterable[AnyTool]) -> dict[str, ToolPrompt]:
    """The built-in table, plus each other tool's `prompt_snippet` (its line, made one line)
    and `prompt_guidelines`, if it declares them."""
    prompts = dict(BUILTIN_TOOL_PROMPTS)
    for tool in tools:
        snippet = " ".join(str(getattr(tool, "prompt_snippet", None) or "").split())
        guidelines = tuple(str(text) for text in getattr(tool, "prompt_guidelines", ()))
        if tool.name not in prompts and (snippet or guidelines):
            prompts[tool.name] = ToolPrompt(snippet, guidelines)
    return prompts


def guidelines_for(tool_names: Sequence[str], prompts: Mapping[str, ToolPrompt]) -> list[str]:
    """The rules: bash's search rule when no search tool is enabled, then each enabled tool's
    guidelines in the tools' order, then the general ones; trimmed, each once."""
    # [exercise 11-guidelines]
    enabled = frozenset(tool_names)
    rules = [SEARCH_WITH_BASH] if "bash" in enabled and not enabled & SEARCH_TOOLS else []
    rules += [text for name in tool_names if name in prompts for text in prompts[name].guidelines]
    return list(dict.fromkeys(text.strip() for text in [*rules, *GENERAL_GUIDELINES]
                              if text.strip()))
    # [end]


def tools_section(tool_names: Sequence[str], prompts: Mapping[str, ToolPrompt]) -> str:
    """A line for each enabled tool that has one; a tool without a line is not listed."""
    lines = [f"- {name}: {prompts[name].line}" for name in tool_names
             if name in prompts and prompts[name].line]
    return "\n".join(lines or ["(none)"]) + f"\n\n{OTHER_TOOLS}"


def context_section(files: Sequence[ContextFile]) -> str:
    """CONTEXT_INTRO, then per file `<project_instructions path="PATH">`, its content and
    `</project_instructions>` on lines of their own; the parts joined by blank lines."""
    # [exercise 11-context-section]
    blocks = [f'<project_instructions path="{file.path}">\n{file.content}\n'
              "</project_instructions>" for file in files]
    return "\n\n".join([CONTEXT_INTRO, *blocks])
    # [end]


def system_prompt_sections(*, tool_names: Sequence[str], cwd: Path,
                           custom_prompt: str | None = None, append: str | None = None,
                           context_files: Sequence[ContextFile] = (), skills: Sequence[Skill] = (),
                           tool_prompts: Mapping[str, ToolPrompt] = BUILTIN_TOOL_PROMPTS,
                           ) -> dict[str, str]:
    """Pi's sections by name, in order, each after the preamble framed by its name, empty ones
    left out; joined by blank lines, they are the system prompt. The catalog names the tool
    that opens a skill's file: `read`, else `bash`; with neither there is no catalog."""
    reader = next((name for name in ("read", "bash") if name in tool_names), None)
    sections = {
        "tools": "" if custom_prompt else tools_section(tool_names, tool_prompts),
        "rules": "" if custom_prompt else "\n".join(
            f"- {text}" for text in guidelines_for(tool_names, tool_prompts)),
        "addendum": append or "",
        "project_context": context_section(context_files) if context_files else "",
        "skills": format_skills_for_prompt(skills, reader).strip() if reader else "",
        "cwd": str(cwd).replace("\\", "/"),
    }
    return {"preamble": custom_prompt or INTRO,
            **{name: f"<{name}>\n{text}\n</{name}>" for name, text in sections.items() if text}}


def declared_prompt(messages: Sequence[AnyMessage], sections: Mapping[str, str],
                    tools: Sequence[Tool], at_ms: int) -> SystemMessage | None:
    """The system message a session records before a prompt so that its transcript declares
    `sections` and `tools` (Pi 1.6's `diffSystemPromptSections` and `getToolStateChanges`):
    each section new or changed, None for one gone; each tool new or changed, and by name each
    one gone or changed. None when the transcript already declares exactly these."""
    now = replay([message for message in messages if isinstance(message, SystemMessage)])
    changed: dict[str, str | None] = {
        name: text for name, text in sections.items() if now.sections.get(name) != text}
    changed |= {name: None for name in now.sections if name not in sections}
    before, after = {t.name: t for t in now.tools}, {t.name: t for t in tools}
    added = tuple(tool for tool in tools if before.get(tool.name) != tool)
    removed = tuple(ToolReference(name=t.name) for t in now.tools if after.get(t.name) != t)
    if not (changed or added or removed):
        return None
    return SystemMessage(content="", sections=changed or None, tools_added=added or None,
                         tools_removed=removed or None, timestamp=at_ms)
