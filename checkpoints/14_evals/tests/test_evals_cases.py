"""Eval cases are data, checked when loaded; every problem is one line naming the spot."""

import shutil
from pathlib import Path

import pytest
from eval_fakes import SIMPLE_CASE, write_case

from course.evals.cases import CaseError, load_case, load_suite
from course.evals.workspace import driver_case

STEP = 14

BUGFIX = """\
id: fix-it
first_checkpoint: 7
prompt: "Fix the bug."
workspace: buggy-calc
script: fix-buggy-calc.yaml
tools: [read, edit, bash]
files: [calc.py]
actions:
  - {event: tool_execution_start, steer: "Hurry."}
setup: {retry: {max_retries: 2}}
judges:
  - file_contains: {path: calc.py, text: "a + b"}
"""


@pytest.fixture
def suite(tmp_path: Path, data_dir: Path) -> Path:
    """A suite folder beside copies of the shared fixture workspace and script."""
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", tmp_path / "workspaces" / "buggy-calc")
    shutil.copytree(data_dir / "scripts", tmp_path / "scripts")
    return tmp_path / "cases"


def test_names_resolve_by_walking_up_from_the_case_file(suite: Path) -> None:
    case = load_case(write_case(suite, "fix", BUGFIX))
    assert case.workspace == suite.parent / "workspaces" / "buggy-calc"
    assert case.script is not None and len(case.script["turns"]) == 4
    assert case.spec.first_checkpoint == 7


def test_the_driver_gets_the_normalised_case_with_the_setup_of_later_steps(suite: Path) -> None:
    data = driver_case(load_case(write_case(suite, "fix", BUGFIX)))
    assert set(data) == {"id", "prompt", "tools", "script", "actions", "retry"}
    assert data["actions"] == [{"event": "tool_execution_start", "steer": "Hurry."}]
    real = driver_case(load_case(write_case(suite, "fix", BUGFIX)), model="openai/gpt-x")
    assert real["model"] == "openai/gpt-x" and "script" not in real


@pytest.mark.parametrize(("change", "named"), [
    (("prompt:", "promt:"), "prompt: Field required"),
    (("first_checkpoint: 7", "first_checkpoint: 5"), "first_checkpoint: Input should be"),
    (("script: fix-buggy-calc.yaml", "script: missing.yaml"), "no scripts/missing.yaml"),
    (("workspace: buggy-calc", "workspace: nowhere"), "no workspaces/nowhere"),
    (("script: fix-buggy-calc.yaml", "model: openai/x\nscript: fix-buggy-calc.yaml"),
     "exactly one of turns, script or model"),
    (("file_contains: {path: calc.py,", "file_contains: {path: other.py,"),
     "other.py is not in the case's files"),
    (("  - file_contains", "  - looks_good: true\n  - file_contains"), "judges[0]: expected one"),
    (("  - file_contains", "  - tool_called: [bash]\n  - file_contains"),
     "judges[0].tool_called: expected a str"),
    (("tools: [read", "tools: {read"), "not valid YAML"),
])
def test_a_broken_case_is_one_line_naming_file_and_field(
    suite: Path, change: tuple[str, str], named: str
) -> None:
    file = write_case(suite, "broken", BUGFIX.replace(*change))
    with pytest.raises(CaseError) as raised:
        load_case(file)
    message = str(raised.value)
    assert message.startswith(str(file)) and named in message and "\n" not in message


def test_a_broken_inline_script_is_named_at_load_time(suite: Path) -> None:
    file = write_case(suite, "bad", SIMPLE_CASE.format(id="bad").replace("text:", "txt:"))
    with pytest.raises(CaseError, match=r"script: turns\[0\]: unknown field 'txt'"):
        load_case(file)


def test_a_suite_is_sorted_by_id_and_ids_are_unique(suite: Path) -> None:
    write_case(suite, "b", SIMPLE_CASE.format(id="zeta"))
    write_case(suite, "a", SIMPLE_CASE.format(id="alpha"))
    assert [case.id for case in load_suite(suite)] == ["alpha", "zeta"]
    write_case(suite, "c", SIMPLE_CASE.format(id="alpha"))
    with pytest.raises(CaseError, match=r"id 'alpha' is also used by a\.yaml"):
        load_suite(suite)


def test_an_empty_or_missing_suite_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="no such suite folder"):
        load_suite(tmp_path / "nowhere")
    with pytest.raises(CaseError, match="has no case files"):
        load_suite(tmp_path)
    (tmp_path / "cases.yaml").write_text("id: one\n")
    with pytest.raises(CaseError, match=r"cases\.yaml: is a file, not a suite folder$"):
        load_suite(tmp_path / "cases.yaml")


@pytest.mark.parametrize(("text", "named"), [
    (b"id: a\nwhen: 2024-02-30\n", "day is out of range for month"),
    (b"id: a\ncount: " + b"9" * 5_000 + b"\n", "Exceeds the limit (4300 digits)"),
    (b"id: a\ntask: \xff\xfe\n", "not valid UTF-8"),
])
def test_a_case_file_python_cannot_read_is_one_line_naming_it(tmp_path: Path, text: bytes,
                                                               named: str) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(text)
    with pytest.raises(CaseError) as raised:
        load_suite(tmp_path)
    message = str(raised.value)
    assert message.startswith(f"{file}: ") and named in message and "\n" not in message
