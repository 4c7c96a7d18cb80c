"""The system prompt has Pi 1.6's sections, in the course's own words.

Compared with expected/newest/system-prompt.json, what Pi 1.6's `buildSystemPromptSections`
gave for five inputs (the differential suite compares hundreds more, live): the sections and
their order, which tools are listed, how many rules there are, and the project instructions,
catalog and working directory after their sentences. Pi's sentences must not appear.
"""

import json
import os
import re
from pathlib import Path

import pytest

from pi.coding_agent.resources.context_files import ContextFile, load_context_files
from pi.coding_agent.resources.discovery import load_skills_from_dir
from pi.coding_agent.resources.skills import Skill, SkillCommandError, expand_skill_command
from pi.coding_agent.resources.system_prompt import (
    BUILTIN_TOOL_PROMPTS,
    GENERAL_GUIDELINES,
    SEARCH_WITH_BASH,
    ToolPrompt,
    guidelines_for,
    system_prompt_sections,
    tool_prompts_for,
)

STEP = 11
DEFAULT_TOOLS = ("read", "bash", "edit", "write")
CWD = Path("/home/user/project")


@pytest.fixture(scope="module")
def pi16(data_dir) -> list[dict]:
    text = (data_dir / "pi-reference/expected/newest/system-prompt.json").read_text("utf-8")
    return json.loads(text)["cases"]


@pytest.fixture(scope="module")
def skills(data_dir):
    return load_skills_from_dir(data_dir / "pi-reference/skills/skills", "test").skills


class Tool:
    """A custom tool as an extension declares it: a name, a line, guidelines."""

    def __init__(self, spec: dict) -> None:
        self.name, self.prompt_snippet = spec["name"], spec["snippet"]
        self.prompt_guidelines = spec["guidelines"]


def ours_for(case: dict) -> dict[str, str]:
    """The course's sections for one recorded input."""
    customs = [Tool(tool) for tool in case["tools"] if tool.get("custom")]
    return system_prompt_sections(
        tool_names=[tool["name"] for tool in case["tools"]], cwd=Path(case["cwd"]),
        custom_prompt=case["customPrompt"], append=case["append"],
        context_files=[ContextFile(Path(f["path"]), f["content"]) for f in case["contextFiles"]],
        skills=[Skill(s["name"], s["description"], Path(s["filePath"]), Path(s["baseDir"]),
                      "test", s["disableModelInvocation"]) for s in case["skills"]],
        tool_prompts=tool_prompts_for(customs))  # type: ignore[arg-type]


def build_system_prompt(**options) -> str:
    """The whole prompt, as the resource loader joins the sections."""
    return "\n\n".join(system_prompt_sections(**options).values())


def inner(section: str) -> list[str]:
    """The lines between `<name>` and `</name>`."""
    return section.splitlines()[1:-1]


def test_the_sections_are_pis_in_pis_order_without_its_docs(pi16) -> None:
    for case in pi16:
        pis = list(case["sections"])
        assert ("docs" in pis) is not bool(case["input"]["customPrompt"])  # divergence 15
        assert list(ours_for(case["input"])) == [n for n in pis if n != "docs"], case["input"]


def test_the_same_tools_are_listed_with_as_many_rules_as_in_pi(pi16) -> None:
    for case in pi16:
        ours, pis = ours_for(case["input"]), case["sections"]
        if "tools" in pis:
            listed = [[line.split(":")[0] for line in inner(side["tools"]) if line[:2] == "- "]
                      for side in (ours, pis)]
            assert listed[0] == listed[1], case["input"]
        if "rules" in pis:  # the same number, a custom tool's own guideline at the same place
            given = {f"- {g}" for tool in case["input"]["tools"]
                     for g in tool.get("guidelines", ())}
            rules = [[r if r in given else "ours" for r in inner(side["rules"])]
                     for side in (ours, pis)]
            assert rules[0] == rules[1], case["input"]


def test_instructions_catalog_and_cwd_are_pis_after_their_sentences(pi16) -> None:
    for case in pi16:
        ours, pis = ours_for(case["input"]), case["sections"]
        assert ours["cwd"] == pis["cwd"]
        if "project_context" in pis:
            assert inner(ours["project_context"])[1:] == inner(pis["project_context"])[1:], \
                "after its first line, project_context differs from Pi's"
        if "skills" in pis:
            catalog = [side["skills"].split("<available_skills>")[1] for side in (ours, pis)]
            assert catalog[0] == catalog[1]
        if case["input"]["customPrompt"]:
            assert ours["preamble"] == pis["preamble"] and ours["addendum"] == pis["addendum"]


def test_pis_sentences_do_not_appear(pi16) -> None:
    checked = 0
    for case in pi16[:4]:  # the fifth brings its own prompt, the same on both sides
        ours = "\n".join(ours_for(case["input"]).values())
        custom = [t["name"] for t in case["input"]["tools"] if t.get("custom")]
        pis = [line for name in ("preamble", "tools", "rules", "skills")
               for line in case["sections"].get(name, "").splitlines()
               if len(line) > 20 and "<" not in line
               and not any(tool in line.lower() for tool in custom)]
        assert not [line for line in pis if line in ours]
        checked += len(pis)
    assert checked > 20


def test_the_catalog_tells_how_to_open_a_skill_with_read_else_bash_else_is_left_out(
    skills,
) -> None:
    for tools, opener in ((DEFAULT_TOOLS, "with the read tool"), (("bash", "edit"), "with bash"),
                          (("edit", "write"), None)):
        sections = system_prompt_sections(tool_names=tools, cwd=CWD, skills=skills)
        assert ("skills" in sections) is (opener is not None)
        if opener:
            assert opener in sections["skills"].split("<available_skills>")[0]
            assert sections["skills"].count("<name>") == len(
                [s for s in skills if not s.disable_model_invocation])


def test_bash_is_told_to_search_only_when_no_tool_lists_or_searches() -> None:
    assert guidelines_for(("bash",), BUILTIN_TOOL_PROMPTS)[0] == SEARCH_WITH_BASH
    for other in ("grep", "find", "ls"):
        assert SEARCH_WITH_BASH not in guidelines_for(("bash", other), BUILTIN_TOOL_PROMPTS), \
            f"bash is told to search although {other} is enabled"


@pytest.mark.parametrize(("tools", "count"), [
    (("read",), 3),  # read's own, then the two general ones
    (("read", "edit"), 5),  # edit brings two
    (("edit", "write"), 5),
    (("bash",), 3),  # the search rule and the general two
    (("bash", "ls"), 2),  # a tool that lists: no search rule
])
def test_rules_follow_the_enabled_tools(tools, count) -> None:
    assert len(guidelines_for(tools, BUILTIN_TOOL_PROMPTS)) == count


def test_rules_are_trimmed_then_empty_ones_dropped_and_repeats_kept_once_in_first_place(
) -> None:
    prompts = {"notes": ToolPrompt("keep notes", ("  Write notes in Markdown ", "", "   ")),
               "diary": ToolPrompt("keep a diary", ("Write notes in Markdown", "Date each entry"))}
    rules = guidelines_for(("notes", "diary"), prompts)
    assert rules == ["Write notes in Markdown", "Date each entry", *GENERAL_GUIDELINES]


def test_a_tool_without_a_line_is_not_listed_but_its_guidelines_count() -> None:
    class Notes:
        name = "notes"
        prompt_snippet = ""
        prompt_guidelines = ("  Write notes in Markdown ", "")

    prompts = tool_prompts_for([Notes()])  # type: ignore[list-item]
    sections = system_prompt_sections(tool_names=("read", "notes"), cwd=CWD, tool_prompts=prompts)
    assert [line[:6] for line in inner(sections["tools"])][:1] == ["- read"]
    assert "notes" not in sections["tools"]
    assert "- Write notes in Markdown" in inner(sections["rules"])


def test_a_custom_tool_brings_its_own_line_and_guidelines() -> None:
    class Deploy:
        name = "deploy"
        prompt_snippet = "deploy the\n   current branch"
        prompt_guidelines = ("Deploy only after the tests pass",)

    prompts = tool_prompts_for([Deploy()])  # type: ignore[list-item]
    prompt = build_system_prompt(tool_names=("read", "deploy"), cwd=CWD, tool_prompts=prompts)
    assert "- deploy: deploy the current branch" in prompt
    assert guidelines_for(("read", "deploy"), prompts)[1] == "Deploy only after the tests pass"


def test_a_custom_prompt_replaces_who_the_agent_is_and_the_tool_list(skills) -> None:
    context = [ContextFile(Path("/repo/AGENTS.md"), "Run make test.")]
    prompt = build_system_prompt(tool_names=DEFAULT_TOOLS, cwd=CWD,
                                 custom_prompt="You review code.", append="Be kind.",
                                 context_files=context, skills=skills)
    assert prompt.startswith("You review code.\n\n<addendum>\nBe kind.\n</addendum>\n\n"
                             "<project_context>\n")
    assert "<tools>" not in prompt and "<rules>" not in prompt
    assert prompt.index('<project_instructions path="/repo/AGENTS.md">\nRun make test.\n'
                        "</project_instructions>") < prompt.index("<available_skills>")
    assert prompt.endswith(f"<cwd>\n{CWD}\n</cwd>")


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
    plain = build_system_prompt(tool_names=DEFAULT_TOOLS, cwd=CWD)
    assert "<project_context>" not in plain
    with_file = build_system_prompt(tool_names=DEFAULT_TOOLS, cwd=CWD,
                                    context_files=[ContextFile(Path("AGENTS.md"), "Be brief.")])
    assert ('<project_instructions path="AGENTS.md">\nBe brief.\n</project_instructions>'
            in with_file)


def declared_after(messages: list, sections: dict, tools: list):
    """The declaration for `sections` and `tools`, and what the transcript replays with it."""
    from pi.ai.transcript import replay
    from pi.coding_agent.resources.system_prompt import declared_prompt

    declared = declared_prompt(messages, sections, tools, at_ms=7)
    return declared, replay([*messages, *([declared] if declared else [])])


def a_tool(name: str, description: str = "does things"):
    from pi.ai import Tool

    return Tool(name=name, description=description, parameters={"type": "object"})


def test_a_transcript_that_declares_nothing_gets_every_section_and_tool_once() -> None:
    sections = {"preamble": "Hi.", "cwd": "<cwd>\n/w\n</cwd>"}
    declared, now = declared_after([], sections, [a_tool("read"), a_tool("bash")])
    assert declared is not None and declared.content == "" and declared.timestamp == 7
    assert declared.sections == sections and declared.tools_removed is None
    assert now.sections == sections and [t.name for t in now.tools] == ["read", "bash"]
    assert declared_after([declared], sections, [a_tool("read"), a_tool("bash")])[0] is None


def test_only_what_changed_is_declared_and_the_replay_is_then_exactly_the_new_prompt() -> None:
    first, _ = declared_after([], {"preamble": "Hi.", "addendum": "Old.", "cwd": "/a"},
                              [a_tool("read"), a_tool("bash"), a_tool("edit")])
    sections = {"preamble": "Hi.", "cwd": "/b", "skills": "<skills>…</skills>"}
    tools = [a_tool("read"), a_tool("bash", "runs commands, now better")]
    declared, now = declared_after([first], sections, tools)
    assert declared is not None
    assert declared.sections == {"cwd": "/b", "skills": "<skills>…</skills>", "addendum": None}
    assert [t.name for t in declared.tools_added or ()] == ["bash"], "a changed tool comes again"
    assert [t.name for t in declared.tools_removed or ()] == ["bash", "edit"]
    assert now.sections == {"preamble": "Hi.", "cwd": "/b", "skills": "<skills>…</skills>"}
    assert list(now.tools) == tools
