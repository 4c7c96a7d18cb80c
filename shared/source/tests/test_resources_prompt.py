"""The system prompt has Pi's structure, in the course's own words.

Compared with the `systemPrompt` section of expected/skills.json: section order, the skills
catalog only with `read`, the date and working directory as the last two lines, and which
guidelines appear for the default tool set and for bash alone. Pi's sentences themselves must
not appear.
"""

import json
import os
import re
from datetime import date
from pathlib import Path

import pytest

from pi.coding_agent.resources.context_files import ContextFile, load_context_files
from pi.coding_agent.resources.discovery import load_skills_from_dir
from pi.coding_agent.resources.skills import SkillCommandError, expand_skill_command
from pi.coding_agent.resources.system_prompt import (
    BUILTIN_TOOL_PROMPTS,
    build_system_prompt,
    guidelines_for,
    tool_prompts_for,
)

STEP = 11
DEFAULT_TOOLS = ("read", "bash", "edit", "write")
TODAY = date(2026, 3, 15)
CWD = Path("/home/user/project")


@pytest.fixture(scope="module")
def reference(data_dir) -> dict:
    text = (data_dir / "pi-reference/expected/skills.json").read_text(encoding="utf-8")
    return json.loads(text)["systemPrompt"]


@pytest.fixture(scope="module")
def skills(data_dir):
    return load_skills_from_dir(data_dir / "pi-reference/skills/skills", "test").skills


def guideline_lines(prompt: str) -> list[str]:
    lines = []
    for line in prompt.split("\nGuidelines:\n", 1)[1].splitlines():
        if not line.startswith("- "):
            break
        lines.append(line)
    return lines


def test_sections_come_in_pis_order(skills) -> None:
    prompt = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD, skills=skills)
    markers = ["Available tools:", "Guidelines:", "<available_skills>", "\nCurrent date:",
               "\nCurrent working directory:"]
    offsets = [prompt.index(marker) for marker in markers]
    assert offsets == sorted(offsets)


def test_the_catalog_appears_only_when_read_is_enabled(reference, skills) -> None:
    with_read = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD, skills=skills)
    bash_only = build_system_prompt(tool_names=("bash",), today=TODAY, cwd=CWD, skills=skills)
    assert ("<available_skills>" in with_read) is reference["withReadTool_containsSkillsBlock"]
    assert ("<available_skills>" in bash_only) is reference["bashOnly_containsSkillsBlock"]


def test_the_last_two_lines_are_the_injected_date_and_directory(reference) -> None:
    prompt = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD)
    date_pattern, cwd_line = reference["lastTwoLinesPattern"]
    assert prompt.splitlines()[-2:] == [date_pattern.replace("YYYY-MM-DD", "2026-03-15"),
                                        cwd_line]


def test_guidelines_have_pis_structure_but_not_its_sentences(reference) -> None:
    ours = guideline_lines(build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD))
    ours_bash = guideline_lines(build_system_prompt(tool_names=("bash",), today=TODAY, cwd=CWD))
    pis, pis_bash = reference["guidelinesDefaultTools"], reference["guidelinesBashOnly"]
    assert len(ours) == len(pis) and len(ours_bash) == len(pis_bash)
    # Bash alone keeps the same guidelines, at the same places, as Pi's bash-only list.
    assert [ours.index(line) for line in ours_bash] == [pis.index(line) for line in pis_bash]
    assert not set(ours) & set(pis)


@pytest.mark.parametrize(("tools", "count"), [
    (("read",), 2),  # read alone: nothing to edit, only the two general ones
    (("read", "edit"), 5),  # read before editing, precise edits, report in text, general two
    (("edit",), 4),  # precise edits, report in text, and the two general ones
    (("edit", "write"), 5),  # write brings its own; edit's "report in text" comes once
])
def test_guidelines_depend_on_the_whole_tool_set(tools, count) -> None:
    assert len(guidelines_for(tools, BUILTIN_TOOL_PROMPTS)) == count


def test_every_enabled_tool_gets_one_line_unknown_ones_their_name() -> None:
    prompt = build_system_prompt(tool_names=("read", "deploy"), today=TODAY, cwd=CWD)
    tools = prompt.split("Available tools:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(":")[0] for line in tools] == ["- read", "- deploy"]


def test_a_custom_tool_brings_its_own_line_and_guidelines() -> None:
    class Deploy:
        name = "deploy"
        prompt_snippet = "deploy the current branch"
        prompt_guidelines = ("Deploy only after the tests pass",)

    prompts = tool_prompts_for([Deploy()])  # type: ignore[list-item]
    prompt = build_system_prompt(tool_names=("read", "deploy"), today=TODAY, cwd=CWD,
                                 tool_prompts=prompts)
    assert "- deploy: deploy the current branch" in prompt
    assert guideline_lines(prompt) == ["- Deploy only after the tests pass",
                                       *guideline_lines(prompt)[-2:]]


def test_a_custom_prompt_replaces_only_the_base(skills) -> None:
    context = [ContextFile(Path("/repo/AGENTS.md"), "Run make test.")]
    prompt = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD,
                                 custom_prompt="You review code.", append="Be kind.",
                                 context_files=context, skills=skills)
    assert prompt.startswith("You review code.\n\nBe kind.\n\n# Project Context\n\n")
    assert "Available tools:" not in prompt and "Guidelines:" not in prompt
    assert prompt.index("## /repo/AGENTS.md\n\nRun make test.\n\n") < prompt.index(
        "<available_skills>")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_context_files_run_from_the_agent_folder_then_root_down_to_cwd(tmp_path) -> None:
    cwd = tmp_path / "repo" / "pkg" / "app"
    cwd.mkdir(parents=True)
    write(tmp_path / "agent" / "CLAUDE.md", "mine")
    write(tmp_path / "AGENTS.md", "top")
    write(tmp_path / "repo" / "AGENTS.md", "repo")
    write(tmp_path / "repo" / "CLAUDE.md", "repo, older name")
    write(cwd / "CLAUDE.md", "app")
    found = load_context_files(cwd, tmp_path / "agent", ceiling=tmp_path)
    assert [(f.path.relative_to(tmp_path).as_posix(), f.content) for f in found] == [
        ("agent/CLAUDE.md", "mine"), ("AGENTS.md", "top"), ("repo/AGENTS.md", "repo"),
        ("repo/pkg/app/CLAUDE.md", "app")]
    # An agent folder that is also one of the ancestors is listed once.
    assert len(load_context_files(cwd, tmp_path, ceiling=tmp_path)) == 3


@pytest.mark.skipif(os.name != "posix", reason="symlinks, devices and FIFOs are POSIX")
def test_a_context_file_linking_out_of_its_folder_or_to_a_device_or_fifo_is_not_read(
    tmp_path,
) -> None:
    secret = tmp_path / "outside" / "secret.txt"
    write(secret, "KEY=sk-never-sent")
    cases = {"link-out": lambda p: p.symlink_to(secret), "fifo": lambda p: os.mkfifo(p),
             "device": lambda p: p.symlink_to("/dev/zero"),
             "environ": lambda p: p.symlink_to("/proc/self/environ")}
    for name, make in cases.items():
        cwd = tmp_path / name
        cwd.mkdir()
        make(cwd / "AGENTS.md")
        write(cwd / "CLAUDE.md", "the safe one")
        problems: list = []
        found = load_context_files(cwd, tmp_path / "agent", tmp_path / name, problems)
        assert [f.content for f in found] == ["the safe one"], name
        assert [p.path for p in problems] == [cwd / "AGENTS.md"], name
    inside = tmp_path / "inside"
    write(inside / "docs" / "agents.md", "linked within the tree")
    (inside / "AGENTS.md").symlink_to(inside / "docs" / "agents.md")
    found = load_context_files(inside, tmp_path / "agent", inside)
    assert [f.content for f in found] == ["linked within the tree"]


def test_a_skill_command_carries_the_body_then_the_arguments(skills) -> None:
    message = expand_skill_command("/skill:valid-skill check the README", skills)
    assert message is not None
    skill = next(s for s in skills if s.name == "valid-skill")
    assert message.startswith(f'<skill name="valid-skill" location="{skill.file_path}">\n')
    assert str(skill.base_dir) in message.splitlines()[1]
    assert "---" not in message and "# Valid Skill\n\nThis is a valid skill" in message
    assert message.endswith("</skill>\n\ncheck the README")
    assert expand_skill_command("/skill:valid-skill", skills).endswith("</skill>")


def test_hidden_skills_still_answer_to_their_command(skills) -> None:
    message = expand_skill_command("/skill:disable-model-invocation", skills)
    assert message is not None and "Manual Only Skill" in message


@pytest.mark.parametrize("text", ["/skill:nope x", "skill:valid-skill", "/skill:", "hello"])
def test_other_text_is_not_a_skill_command(skills, text) -> None:
    assert expand_skill_command(text, skills) is None


def test_a_vanished_skill_file_is_one_clear_error(tmp_path) -> None:
    write(tmp_path / "gone" / "SKILL.md", "---\ndescription: Soon gone.\n---\nBody")
    skills = load_skills_from_dir(tmp_path, "test").skills
    (tmp_path / "gone" / "SKILL.md").unlink()
    with pytest.raises(SkillCommandError, match=re.escape(str(tmp_path / "gone" / "SKILL.md"))):
        expand_skill_command("/skill:gone", skills)


def test_without_context_files_the_prompt_has_no_project_section() -> None:
    plain = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD)
    assert "# Project Context" not in plain
    with_file = build_system_prompt(tool_names=DEFAULT_TOOLS, today=TODAY, cwd=CWD,
                                    context_files=[ContextFile(Path("AGENTS.md"), "Be brief.")])
    assert "# Project Context" in with_file and "## AGENTS.md\n\nBe brief." in with_file
