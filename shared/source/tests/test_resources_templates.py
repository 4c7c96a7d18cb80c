"""Prompt templates: `/name args` becomes the file's text with the arguments filled in."""

from pathlib import Path

import pytest

from pi.coding_agent.resources.discovery import load_prompt_templates
from pi.coding_agent.resources.loader import ResourceLoader, trust_everything
from pi.coding_agent.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    parse_command_args,
    substitute_args,
)

STEP = 11


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(("text", "args"), [  # Pi 1.6's parseCommandArgs gives the same
    ("a b  c", ["a", "b", "c"]),
    ('fix "the login page" fast', ["fix", "the login page", "fast"]),
    ("it's 'a b'", ["it's", "a b"]),
    ("\ttabs\tcount\nlines\u00a0nbsp\x1cfs ", ["tabs", "count", "lines", "nbsp\x1cfs"]),
    ('"" empty', ["", "empty"]),
    ("", []),
    ('say "hi \\"you\\"" "a\\b"', ["say", 'hi "you"', "a\\b"]),
    ('"ab"cd"ef g', ['abcd"ef', "g"]),
    ('"unclosed a b', ['"unclosed', "a", "b"]),
    ('x "ab\\"', ["x", '"ab\\"']),
])
def test_arguments_split_as_pi_1_6_splits_them(text, args) -> None:
    assert parse_command_args(text) == args


def test_splitting_arguments_takes_time_linear_in_their_length() -> None:
    # Built a character at a time, 1.6 million characters took 100 s; these take a second.
    words = "a" * 2_000_000
    assert parse_command_args(f"{words} '{words}' \"{words}") == [words, words, f'"{words}']
    assert parse_command_args("'a' \"b\" " * 300_000) == ["a", "b"] * 300_000


@pytest.mark.parametrize(("content", "filled"), [
    ("Review $1 for $2.", "Review app.py for speed."),
    ("All: $@ / $ARGUMENTS", "All: app.py speed / app.py speed"),
    ("Missing: [$3]", "Missing: []"),
    ("Price: $ 5, $x", "Price: $ 5, $x"),
])
def test_placeholders_are_filled(content, filled) -> None:
    assert substitute_args(content, ["app.py", "speed"]) == filled


def test_an_argument_is_never_substituted_again() -> None:
    assert substitute_args("$1 and $@", ["$2", "$ARGUMENTS"]) == "$2 and $2 $ARGUMENTS"


def test_a_template_file_becomes_a_command(tmp_path) -> None:
    write(tmp_path / "prompts/review.md", "---\ndescription: Review a file\n---\nReview $1.\n")
    write(tmp_path / "prompts/plain.md", "\n" + "Explain this code in simple words. " * 3)
    write(tmp_path / "prompts/notes.txt", "not a template")
    templates, problems = load_prompt_templates([(tmp_path / "prompts", "user")])
    assert problems == ()
    assert [(t.name, t.description) for t in templates] == [
        ("plain", "Explain this code in simple words. Explain this code in simp..."),
        ("review", "Review a file")]
    assert expand_prompt_template('/review "src/app.py"', templates) == "Review src/app.py."
    assert expand_prompt_template("/unknown x", templates) is None
    assert expand_prompt_template("review x", templates) is None


def test_the_first_template_of_a_name_wins_and_a_bad_one_warns(tmp_path) -> None:
    write(tmp_path / "project/review.md", "Project review of $1")
    write(tmp_path / "user/review.md", "User review of $1")
    write(tmp_path / "user/broken.md", "---\ndescription: [oops\n---\nBody")
    templates, problems = load_prompt_templates(
        [(tmp_path / "project", "project"), (tmp_path / "user", "user")])
    assert [(t.name, t.source) for t in templates] == [("review", "project")]
    assert [(d.type, d.path.name) for d in problems] == [("warning", "broken.md"),
                                                         ("collision", "review.md")]
    assert problems[1].collision.winner_path == tmp_path / "project/review.md"


def test_resources_expand_skills_first_then_templates(tmp_path) -> None:
    project = tmp_path / "project"
    write(project / ".pi/prompts/ship.md", "Ship $@ today.")
    write(project / ".pi/skills/ship/SKILL.md", "---\ndescription: Shipping steps.\n---\nSteps.")
    resources = ResourceLoader(cwd=project, agent_dir=tmp_path / "agent",
                               trust=trust_everything, context_ceiling=tmp_path).load()
    assert resources.expand_input("/ship v1 v2") == "Ship v1 v2 today."
    assert resources.expand_input("/skill:ship now").startswith('<skill name="ship"')
    assert resources.expand_input("just text") is None
    assert isinstance(resources.templates[0], PromptTemplate)


def test_a_template_whose_date_yaml_cannot_convert_is_skipped_with_one_warning(tmp_path) -> None:
    write(tmp_path / "user/dated.md", "---\ndescription: x\nupdated: 2024-02-30\n---\nBody")
    write(tmp_path / "user/fine.md", "Fine $1")
    templates, problems = load_prompt_templates([(tmp_path / "user", "user")])
    assert [t.name for t in templates] == ["fine"]
    assert [(d.type, d.path.name) for d in problems] == [("warning", "dated.md")]
