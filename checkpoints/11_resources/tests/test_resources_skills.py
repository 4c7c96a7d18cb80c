"""Skill files load, warn and collide exactly as in Pi (expected/skills.json).

Every case runs Pi's fixture tree through our loader and compares with what real Pi produced.
Only the wording of the YAML parser's error differs (Pi's comes from the JS `yaml` package):
for that file we check that there is exactly one warning, at the right path.
"""

import json
import re
from pathlib import Path

import pytest

from pi.coding_agent.resources.discovery import discover_skills, load_skills_from_dir
from pi.coding_agent.resources.frontmatter import (
    FrontmatterError,
    parse_markdown,
    pi_json,
    strip_frontmatter,
)
from pi.coding_agent.resources.skills import format_skills_for_prompt, validate_name

STEP = 11


@pytest.fixture(scope="module")
def skills_root(data_dir):
    return data_dir / "pi-reference" / "skills"


@pytest.fixture(scope="module")
def expected(data_dir, skills_root) -> dict:
    text = (data_dir / "pi-reference/expected/skills.json").read_text(encoding="utf-8")
    return json.loads(text.replace("<SKILLS_ROOT>", str(skills_root)))


def comparable(result: dict) -> dict:
    """The JSON of a load with the YAML parser's own message blanked out, and without 0.73's
    folder-name warning (recorded from Pi 0.73; Pi 1.x no longer compares name and folder)."""
    result["diagnostics"] = [d for d in result["diagnostics"]
                             if "does not match parent directory" not in d["message"]]
    for diagnostic in result["diagnostics"]:
        if diagnostic["path"].endswith("invalid-yaml/SKILL.md"):
            diagnostic["message"] = "<yaml parser message>"
    return result


def test_each_fixture_folder_loads_like_pi(skills_root, expected) -> None:
    cases = expected["loadSkillsFromDir_perFixtureDir"]
    assert sorted(p.name for p in (skills_root / "skills").iterdir()) == sorted(cases)
    for name, case in cases.items():
        ours = pi_json(load_skills_from_dir(skills_root / "skills" / name, "test"))
        assert comparable(ours) == comparable(case), name


def test_the_whole_tree_loads_in_pis_order_with_pis_warnings(skills_root, expected) -> None:
    case = expected["loadSkillsFromDir_wholeSkillsDir"]
    ours = load_skills_from_dir(skills_root / "skills", "test")
    assert [skill.name for skill in ours.skills] == case["skillOrder"]
    assert comparable(pi_json(ours)) == comparable(
        {"skills": case["skills"], "diagnostics": case["diagnostics"]})


def test_a_yaml_error_is_one_warning_naming_the_file_and_line(skills_root) -> None:
    ours = load_skills_from_dir(skills_root / "skills" / "invalid-yaml", "test")
    assert ours.skills == ()
    [diagnostic] = ours.diagnostics
    assert diagnostic.type == "warning" and "line 3" in diagnostic.message


def test_one_skill_nested_thousands_deep_is_skipped_and_the_others_still_load(tmp_path) -> (
    None
):
    for name, frontmatter in [("deep", "name: deep\ndescription: " + "[" * 5000 + "]" * 5000),
                              ("fine", "name: fine\ndescription: A skill that loads.")]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(f"---\n{frontmatter}\n---\nBody.\n")
    ours = load_skills_from_dir(tmp_path, "test")
    assert [skill.name for skill in ours.skills] == ["fine"]
    [diagnostic] = ours.diagnostics
    assert diagnostic.path == tmp_path / "deep" / "SKILL.md"
    assert "nested too deeply" in diagnostic.message


@pytest.mark.parametrize("case", ["loadSkills_collision", "loadSkills_collision_includeDefaults"])
def test_the_first_calendar_wins_and_the_second_is_a_collision(skills_root, expected, case) -> (
    None
):
    collision = skills_root / "skills-collision"
    ours = discover_skills(skills_root / "empty-cwd", skills_root / "empty-agent", trusted=False,
                           skill_paths=[str(collision / "first"), str(collision / "second")])
    reference = expected[case]
    assert pi_json(ours) == {"skills": reference["skills"],
                              "diagnostics": reference["diagnostics"]}


def test_mixed_paths_skip_repeats_silently_and_warn_about_missing_ones(skills_root, expected) -> (
    None
):
    case = expected["loadSkills_mixedPaths"]
    ours = discover_skills(skills_root / "empty-cwd", skills_root / "empty-agent", trusted=False,
                           skill_paths=case["call"]["skillPaths"])
    assert comparable(pi_json(ours)) == comparable(
        {"skills": case["skills"], "diagnostics": case["diagnostics"]})


def test_frontmatter_and_body_match_pis_parser(expected) -> None:
    for path, case in expected["frontmatterParse"].items():
        text = Path(path).read_text(encoding="utf-8")
        if "error" in case:
            with pytest.raises(FrontmatterError):
                parse_markdown(text)
            continue
        assert parse_markdown(text).frontmatter == case["frontmatter"], path
        assert strip_frontmatter(text) == case["bodyAfterStrip"], path


CATALOG_ENTRY = re.compile(r"  <skill>\n    <name>(.*?)</name>\n    <description>(.*?)"
                           r"</description>\n    <location>(.*?)</location>\n  </skill>", re.S)


def test_the_catalog_lists_visible_skills_escaped_like_pi(skills_root, expected) -> None:
    case = expected["formatSkillsForPrompt_wholeSkillsDir"]
    catalog = format_skills_for_prompt(load_skills_from_dir(skills_root / "skills", "t").skills)
    entries = CATALOG_ENTRY.findall(catalog)
    assert [name for name, _, _ in entries] == case["includedNames"]
    assert [description for _, description, _ in entries] == case["escapedDescriptions"]
    assert [location for _, _, location in entries] == case["locations"]
    assert catalog.startswith("\n\n") is case["startsWithTwoNewlines"]
    assert catalog.count("<available_skills>") == 1 and catalog.endswith("</available_skills>")


def test_no_visible_skill_means_no_catalog_at_all(skills_root) -> None:
    hidden = load_skills_from_dir(skills_root / "skills" / "disable-model-invocation", "t")
    assert len(hidden.skills) == 1 and format_skills_for_prompt(hidden.skills) == ""


@pytest.mark.parametrize(("name", "problems"), [
    ("pdf-tools", []),
    ("x" * 65, ["name exceeds 64 characters (65)"]),
    ("PDF_tools", ["name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"]),
    ("-pdf", ["name must not start or end with a hyphen"]),
    ("pdf-", ["name must not start or end with a hyphen"]),
    ("pdf--tools", ["name must not contain consecutive hyphens"]),
])
def test_skill_names_follow_the_agent_skills_rules(name, problems) -> None:
    assert validate_name(name) == problems


def test_a_name_can_break_several_rules_at_once() -> None:
    assert len(validate_name("-Bad--Name-" * 6)) == 4


def test_a_name_other_than_its_folder_loads_without_a_warning(tmp_path) -> None:
    from pi.coding_agent.resources.skills import load_skill_file

    path = write_skill(tmp_path, "pdf", "name: pdf-tools\ndescription: reads PDFs\n")
    skill, diagnostics = load_skill_file(path, "test")
    assert skill is not None and skill.name == "pdf-tools" and diagnostics == []


def write_skill(root: Path, folder: str, frontmatter: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{frontmatter}---\nBody.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["123", "true", "1.5"])
def test_a_name_that_is_not_text_gives_way_to_the_folder_as_in_pi(tmp_path, value) -> None:
    from pi.coding_agent.resources.skills import load_skill_file

    path = write_skill(tmp_path, "tool", f"name: {value}\ndescription: does things\n")
    skill, diagnostics = load_skill_file(path, "test")
    assert skill is not None and skill.name == "tool" and diagnostics == []


@pytest.mark.parametrize("value", ["0", "false", "''"])
def test_a_falsy_name_falls_back_to_the_folder_as_in_pi(tmp_path, value) -> None:
    from pi.coding_agent.resources.skills import load_skill_file

    path = write_skill(tmp_path, "tool", f"name: {value}\ndescription: does things\n")
    skill, diagnostics = load_skill_file(path, "test")
    assert skill is not None and skill.name == "tool" and diagnostics == []


def test_a_repeated_key_is_a_yaml_error_and_skips_the_skill(tmp_path) -> None:
    from pi.coding_agent.resources.skills import load_skill_file

    path = write_skill(tmp_path, "tool", "name: tool\ndescription: a\ndescription: b\n")
    skill, diagnostics = load_skill_file(path, "test")
    assert skill is None and len(diagnostics) == 1
    assert "duplicate key 'description'" in diagnostics[0].message
    assert "(line 4)" in diagnostics[0].message


def test_lengths_count_utf16_units_like_javascript(tmp_path) -> None:
    from pi.coding_agent.resources.skills import description_problem

    assert validate_name("a" * 63 + "\U0001F600")[0] == "name exceeds 64 characters (65)"
    assert description_problem("\U0001F600" * 512) is None  # 1024 units
    assert description_problem("\U0001F600" * 512 + "a") == (
        "description exceeds 1024 characters (1025)")


@pytest.mark.parametrize("value", ["42", "[a, b]"])
def test_a_description_that_is_not_text_is_required_and_the_name_still_checked(
        tmp_path, value) -> None:
    from pi.coding_agent.resources.skills import load_skill_file

    path = write_skill(tmp_path, "tool", f"name: bad--name\ndescription: {value}\n")
    skill, diagnostics = load_skill_file(path, "test")
    assert skill is None and [d.message for d in diagnostics] == [
        "description is required", "name must not contain consecutive hyphens"]


@pytest.mark.parametrize("text", ["---\nname: notes\n---\nJust notes.\n", "---\n: [\n---\n"])
def test_a_loose_md_without_description_or_that_fails_to_parse_is_skipped_silently(
        tmp_path, text) -> None:
    (tmp_path / "notes.md").write_text(text, encoding="utf-8")
    loaded = load_skills_from_dir(tmp_path, "test")
    assert loaded.skills == () and loaded.diagnostics == ()


def test_a_skill_file_that_is_not_utf8_is_one_warning_in_words(tmp_path) -> None:
    (tmp_path / "latin").mkdir()
    (tmp_path / "latin" / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    [diagnostic] = load_skills_from_dir(tmp_path, "test").diagnostics
    assert diagnostic.message == "not valid UTF-8 (byte 32); save the file as UTF-8"


def test_frontmatter_is_read_as_yaml_1_1_where_pi_reads_yaml_1_2() -> None:
    """Divergence 7: PyYAML's `yes` is true and `1.0` a float; Pi's parser gives "yes" and 1."""
    read = parse_markdown("---\nname: a\nanswer: yes\nversion: 1.0\n---\nbody\n")
    assert read.frontmatter == {"name": "a", "answer": True, "version": 1.0}
    assert read.body.strip() == "body"


@pytest.mark.parametrize(("value", "problem"), [
    ("2024-02-30", "day is out of range for month"),  # PyYAML reads it as a date
    ("9" * 5_000, "Exceeds the limit (4300 digits)"),  # more digits than int() converts
])
def test_a_value_yaml_cannot_convert_skips_that_skill_with_one_warning(tmp_path, value,
                                                                      problem) -> None:
    write_skill(tmp_path, "bad", f"name: bad\ndescription: x\nupdated: {value}\n")
    write_skill(tmp_path, "fine", "name: fine\ndescription: A skill that loads.\n")
    ours = load_skills_from_dir(tmp_path, "test")
    assert [skill.name for skill in ours.skills] == ["fine"]
    [diagnostic] = ours.diagnostics
    assert diagnostic.path == tmp_path / "bad" / "SKILL.md" and problem in diagnostic.message
    assert "\n" not in diagnostic.message
