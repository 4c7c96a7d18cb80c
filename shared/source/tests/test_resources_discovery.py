"""The application finds skills like Pi does, and never reads an untrusted project.

The first test rebuilds the folder layout of expected/skills-resource-loader.json (project
skills, user skills, ~/.agents skills) and compares with real Pi. The trust tests watch every
file the loader opens or lists through Python's audit hooks, which see each `open()`,
`os.listdir()` and `os.scandir()` in the process.
"""

import json
import os
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

from pi.coding_agent.resources.discovery import discover_skills, project_skill_dirs
from pi.coding_agent.resources.frontmatter import pi_json
from pi.coding_agent.resources.loader import (
    ResourceLoader,
    default_agent_dir,
    trust_everything,
    trust_nothing,
)

STEP = 11
AUDITED = {"open", "os.listdir", "os.scandir"}
_journals: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if _journals and event in AUDITED and args and isinstance(args[0], str | os.PathLike):
        _journals[-1].append(os.fspath(args[0]))


sys.addaudithook(_audit)  # audit hooks cannot be removed; it records only inside `recording`


@contextmanager
def recording():
    journal: list[str] = []
    _journals.append(journal)
    try:
        yield journal
    finally:
        _journals.pop()


def test_app_discovery_matches_pi_project_first_and_every_skill_md(data_dir, tmp_path) -> None:
    fixtures = data_dir / "pi-reference" / "skills"
    shutil.copytree(fixtures / "skills", tmp_path / "home/.pi/agent/skills")
    shutil.copytree(fixtures / "skills-collision/first", tmp_path / "project/.pi/skills")
    shutil.copytree(fixtures / "skills-collision/second", tmp_path / "home/.agents/skills")
    text = (data_dir / "pi-reference/expected/skills-resource-loader.json").read_text("utf-8")
    expected = json.loads(text.replace("<BASE>", str(tmp_path)))
    expected["diagnostics"] = [d for d in expected["diagnostics"]  # a Pi 0.73 warning 1.x dropped
                               if "does not match parent directory" not in d["message"]]

    found = discover_skills(tmp_path / "project", tmp_path / "home/.pi/agent", trusted=True,
                            home=tmp_path / "home")

    ours = [{key: pi_json(skill)[key] for key in expected["skills"][0]} for skill in found.skills]
    assert ours == expected["skills"]
    diagnostics = [pi_json(d) for d in found.diagnostics]
    yaml_error = [i for i, d in enumerate(diagnostics) if "invalid-yaml" in d["path"]]
    for i in yaml_error:
        diagnostics[i]["message"] = expected["diagnostics"][i]["message"]
    assert len(yaml_error) == 1 and diagnostics == expected["diagnostics"]


def test_shared_agents_skills_are_read_up_to_the_git_root(tmp_path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "packages" / "web"
    cwd.mkdir(parents=True)
    assert project_skill_dirs(cwd) == [cwd / ".pi/skills", cwd / ".agents/skills",
                                       repo / "packages/.agents/skills", repo / ".agents/skills"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def hostile_project(root: Path) -> Path:
    project = root / "cloned"
    write(project / ".pi/SYSTEM.md", "PROJECT SYSTEM PROMPT")
    write(project / ".pi/APPEND_SYSTEM.md", "PROJECT APPENDIX")
    write(project / ".pi/skills/exfiltrate/SKILL.md", "---\ndescription: Upload secrets.\n---\n")
    write(project / ".pi/prompts/deploy.md", "Deploy $1 now.")
    write(project / ".agents/skills/other/SKILL.md", "---\ndescription: Another one.\n---\n")
    return project


def loader_for(project: Path, root: Path, trust) -> ResourceLoader:
    return ResourceLoader(cwd=project, agent_dir=root / "agent",
                          trust=trust, context_ceiling=root)


def test_an_untrusted_projects_resources_are_never_opened(tmp_path) -> None:
    project = hostile_project(tmp_path)
    asked: list[Path] = []

    def policy(folder: Path) -> bool:
        asked.append(folder)
        return False

    with recording() as journal:
        resources = loader_for(project, tmp_path, policy).load()
    assert asked == [project]
    touched = [p for p in journal if Path(p).is_relative_to(project / ".pi")
               or Path(p).is_relative_to(project / ".agents")]
    assert touched == []
    assert not resources.trusted and resources.skills == () and resources.templates == ()
    assert "PROJECT" not in resources.system_prompt
    assert resources.system_prompt.startswith("You are a coding assistant")


def test_trust_is_decided_before_the_project_is_read(tmp_path) -> None:
    project = hostile_project(tmp_path)
    with recording() as journal:
        def policy(folder: Path) -> bool:
            journal.append("<trust decided>")
            return True
        resources = loader_for(project, tmp_path, policy).load()
    in_project = [i for i, p in enumerate(journal) if p != "<trust decided>"
                  and Path(p).is_relative_to(project)]
    assert in_project and journal.index("<trust decided>") < min(in_project)
    assert resources.trusted
    assert resources.system_prompt.startswith(
        "PROJECT SYSTEM PROMPT\n\n<addendum>\nPROJECT APPENDIX\n</addendum>")
    assert [s.name for s in resources.skills] == ["exfiltrate", "other"]
    assert [t.name for t in resources.templates] == ["deploy"]


def test_the_two_trust_policies_answer_yes_and_no(tmp_path) -> None:
    assert trust_everything(tmp_path) and not trust_nothing(tmp_path)


def test_the_agent_folder_is_the_courses_own(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_agent_dir() == tmp_path / ".pi-course" / "agent"
    assert ResourceLoader(cwd=tmp_path).agent_dir == default_agent_dir()


def test_a_symlinked_skill_folder_is_one_skill_not_a_collision(tmp_path) -> None:
    write(tmp_path / "agent/skills/notes/SKILL.md", "---\ndescription: Take notes.\n---\n")
    (tmp_path / "agent/skills/notes-link").symlink_to(tmp_path / "agent/skills/notes")
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
    assert [s.name for s in found.skills] == ["notes"] and found.diagnostics == ()


def test_ignore_files_hide_skills_from_discovery(tmp_path) -> None:
    write(tmp_path / "agent/skills/.gitignore", "drafts/\n")
    write(tmp_path / "agent/skills/drafts/SKILL.md", "---\ndescription: Not yet.\n---\n")
    write(tmp_path / "agent/skills/ready/SKILL.md", "---\ndescription: Ready.\n---\n")
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
    assert [s.name for s in found.skills] == ["ready"]


def test_each_real_folder_is_walked_once_however_many_links_lead_to_it(tmp_path) -> None:
    skills = tmp_path / "agent/skills"
    for level in range(30):  # d0/{a,b} -> d1, d1/{a,b} -> d2, …: 2**30 paths down to d30
        (skills / f"d{level}").mkdir(parents=True)
        for name in "ab":
            (skills / f"d{level}" / name).symlink_to(f"../d{level + 1}")
    write(skills / "d30/deep/SKILL.md", "---\ndescription: At the bottom.\n---\n")
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
    assert [s.name for s in found.skills] == ["deep"] and found.diagnostics == ()
    assert found.skills[0].file_path == skills / ("d0/" + "a/" * 30 + "deep/SKILL.md")


def test_an_ignore_pattern_with_more_than_three_stars_is_skipped_with_one_warning(
        tmp_path) -> None:
    skills = tmp_path / "agent/skills"
    write(skills / ".gitignore", "# *** a comment ***\n*a*a*a*a\ndrafts/\n" + "*a" * 14 + "*b\n")
    write(skills / ("a" * 60), "a file its regex would take hours to refuse")
    write(skills / "drafts/SKILL.md", "---\ndescription: Not yet.\n---\n")
    write(skills / "ready/SKILL.md", "---\ndescription: Ready.\n---\n")
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
    assert [s.name for s in found.skills] == ["ready"]
    assert [(d.message, d.path) for d in found.diagnostics] == [
        ("patterns with over 3 '*' skipped", skills / ".gitignore")]


def test_explicit_paths_come_last_and_missing_ones_warn(tmp_path) -> None:
    write(tmp_path / "agent/skills/notes/SKILL.md", "---\ndescription: User notes.\n---\n")
    write(tmp_path / "extra/notes/SKILL.md", "---\ndescription: Extra notes.\n---\n")
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False,
                            skill_paths=[str(tmp_path / "extra"), "nowhere"])
    assert [(s.name, s.source) for s in found.skills] == [("notes", "user")]
    assert [(d.type, d.message, d.path) for d in found.diagnostics] == [
        ("warning", "skill path does not exist", tmp_path / "cwd" / "nowhere"),
        ("collision", 'name "notes" collision', tmp_path / "extra/notes/SKILL.md")]


def test_a_skill_folder_thousands_deep_is_not_walked_to_the_bottom(tmp_path) -> None:
    write(tmp_path / "agent/skills/notes/SKILL.md", "---\ndescription: Take notes.\n---\n")
    deep = tmp_path / "agent/skills"
    for _ in range(1_100):  # deeper than Python's stack (os.makedirs would recurse as deep)
        deep /= "d"
        deep.mkdir()
    (deep / "SKILL.md").write_text("---\ndescription: Far down.\n---\n")
    try:
        found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
        assert [s.name for s in found.skills] == ["notes"]
    finally:  # bottom up: shutil.rmtree, which cleans tmp_path, recurses once per level too
        (deep / "SKILL.md").unlink()
        for folder in [deep, *deep.parents][:1_100]:
            folder.rmdir()


def test_a_skill_folder_that_cannot_be_listed_is_one_warning_naming_it(monkeypatch,
                                                                     tmp_path) -> None:
    write(tmp_path / "agent/skills/notes/SKILL.md", "---\ndescription: Take notes.\n---\n")
    locked = tmp_path / "agent/skills/locked"
    write(locked / "SKILL.md", "---\ndescription: Locked.\n---\n")
    listdir = os.listdir

    def refuse(path):  # what a folder of mode 000 does to anyone but root
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return listdir(path)

    monkeypatch.setattr(os, "listdir", refuse)
    found = discover_skills(tmp_path / "cwd", tmp_path / "agent", trusted=False)
    assert [s.name for s in found.skills] == ["notes"]
    assert [(d.type, d.path, d.line()) for d in found.diagnostics] == [
        ("warning", locked, f"{locked}: cannot be read (Permission denied)")]
