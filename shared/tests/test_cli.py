"""The command line, run against a tiny fake checkout so it needs no generated checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from pi_course.cli import app, closing_line, diff_stat

COMMANDS = (
    "list", "show", "diff", "demo", "test", "run", "generate", "verify", "practice", "check"
)
MANIFEST = """\
[[step]]
id = 0
slug = "hello"
title = "Hello"
concepts = ["greeting", "exit codes"]
tests = ["tests/test_ok.py::test_ok"]

[[step]]
id = 1
slug = "later"
title = "Not generated yet"
"""
CHANGES = """\
--- /dev/null
+++ b/pi/__main__.py
@@ -0,0 +1,2 @@
+import sys
+print(sys.argv[1:])
--- a/demo.py
+++ b/demo.py
@@ -1,2 +1,2 @@
--- kept: this removed line only looks like a header
+print('demo')
 # unchanged
"""
MAIN = "import pathlib, sys\npathlib.Path('args.txt').write_text(repr(sys.argv[1:]))\nsys.exit(3)\n"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout with a two-step manifest of which only step 00 is generated."""
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "manifest.toml").write_text(MANIFEST, encoding="utf-8")
    files = {
        "course/__init__.py": "",
        "course/__main__.py": MAIN,
        "tests/test_ok.py": "def test_ok():\n    pass\n",
        "pytest.ini": "[pytest]\n",
        "README.md": "# Hello\n\nThe first step.\n",
        "CHANGES.diff": CHANGES,
        "demo.py": "print('héllo from the demo')\nraise SystemExit(4)\n",
    }
    for rel, text in files.items():
        path = tmp_path / "checkpoints" / "00_hello" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def invoke(checkout: Path, *args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"PI_COURSE_ROOT": str(checkout)})


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert name in result.output


@pytest.mark.parametrize("command", ["run", "show", "diff", "demo"])
def test_an_unknown_step_is_one_line_and_exit_2(checkout: Path, command: str) -> None:
    result = invoke(checkout, command, "99")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "99" in lines[0]
    assert "Traceback" not in result.output


def test_a_step_must_be_a_number(checkout: Path) -> None:
    result = invoke(checkout, "show", "two")
    assert result.exit_code == 2
    assert result.output.strip() == "error: not a step number: 'two' (use e.g. 2 or 02)"


def test_an_ungenerated_step_says_how_to_fix_it(checkout: Path) -> None:
    result = invoke(checkout, "run", "1")
    assert result.exit_code == 2
    assert "pi-course generate" in result.output


def test_closing_line_wording() -> None:
    assert closing_line(3, 1) == "3 passed, 1 failed"
    assert closing_line(3, 1, 0) == "3 passed, 1 failed"
    assert closing_line(3, 0, 2) == "3 passed, 0 failed, 2 skipped"


def test_diff_stat_counts_inside_hunks() -> None:
    assert diff_stat(CHANGES) == [("pi/__main__.py", 2, 0), ("demo.py", 1, 1)]


def test_list_shows_each_step(checkout: Path) -> None:
    result = invoke(checkout, "list")
    assert result.exit_code == 0
    assert "hello" in result.output and "later" in result.output
    assert "greeting, exit codes" in result.output


def test_show_renders_readme_and_changed_files(checkout: Path) -> None:
    result = invoke(checkout, "show", "00")
    assert result.exit_code == 0
    assert "The first step." in result.output
    assert "pi/__main__.py" in result.output and "+2" in result.output


def test_diff_prints_the_changes(checkout: Path) -> None:
    result = invoke(checkout, "diff", "0")
    assert result.exit_code == 0
    assert "+print('demo')" in result.output


def test_run_passes_arguments_through_and_runs_where_you_typed_it(
        checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "where-i-am"
    (here / "course").mkdir(parents=True)  # a `course` folder here must not shadow the
    # checkpoint's own
    monkeypatch.chdir(here)
    result = invoke(checkout, "run", "00", "--model", "m", "-v", "hi there")
    assert result.exit_code == 3
    assert (here / "args.txt").read_text() == repr(["--model", "m", "-v", "hi there"])
    assert not (checkout / "checkpoints" / "00_hello" / "args.txt").exists()


def test_diff_keeps_lines_longer_than_the_terminal_whole(checkout: Path) -> None:
    long_line = "+" + "x = 1  # " + "a very long comment " * 20
    changes = checkout / "checkpoints" / "00_hello" / "CHANGES.diff"
    changes.write_text(CHANGES + long_line + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["diff", "0"], env={"PI_COURSE_ROOT": str(checkout),
                                                         "COLUMNS": "60"})
    assert result.exit_code == 0
    assert long_line in result.output.splitlines()


def test_practice_into_its_own_copy_again_leaves_it_as_it_is(checkout: Path,
                                                             tmp_path: Path) -> None:
    mine = tmp_path / "p00"
    mine.mkdir()
    (mine / ".pi-course-practice").write_text("step = 0\nexercises = []\n", encoding="utf-8")
    (mine / "my_work.py").write_text("kept", encoding="utf-8")
    result = invoke(checkout, "practice", "00", str(mine))
    assert result.exit_code == 0 and "already holds your practice copy" in result.output
    assert (mine / "my_work.py").read_text() == "kept"
    other = invoke(checkout, "practice", "01", str(mine))
    assert other.exit_code == 2 and "never overwrites" in other.output


def test_check_and_watch_given_only_a_step_ask_for_the_folder(checkout: Path) -> None:
    for command in ("check", "watch"):
        result = invoke(checkout, command, "7")
        assert result.exit_code == 2
        assert result.output.strip() == "error: give your practice folder too, e.g. 7 my-07"


def test_check_given_only_a_folder_that_is_no_practice_copy_says_so(checkout: Path,
                                                                     tmp_path: Path) -> None:
    result = invoke(checkout, "check", str(tmp_path))
    assert result.exit_code == 2 and "is not a practice copy" in result.output


def test_version_is_one_line() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("pi-course ")


def test_demo_output_and_exit_code_pass_through(
    checkout: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    result = invoke(checkout, "demo", "00")
    assert result.exit_code == 4
    assert capfd.readouterr().out == "héllo from the demo\n"


def test_demo_without_a_step_needs_the_complete_agent(checkout: Path) -> None:
    result = invoke(checkout, "demo")
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "the agent command arrives at step 13" in result.output


def test_test_runs_a_checkpoint_and_ends_with_the_closing_line(checkout: Path) -> None:
    result = invoke(checkout, "test", "00", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "00_hello" in result.output
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"


def test_a_practice_copys_links_name_the_course_so_they_resolve_from_any_folder(
    tmp_path: Path,
) -> None:
    from pi_course.paths import Layout
    from pi_course.practice import links_from_anywhere

    page = ("[zh](../../docs/zh/10.md) [next](../11_resources/) [data](../../shared/data/x) "
            "[diff](CHANGES.diff)")
    root = tmp_path.resolve().as_posix()
    assert links_from_anywhere(page, Layout(tmp_path)) == (
        f"[zh]({root}/docs/zh/10.md) [next]({root}/docs/11_resources.md) [data](data/x) "
        "[diff](CHANGES.diff)")


def test_check_and_watch_say_a_folder_alone_is_enough(checkout: Path) -> None:
    for command in ("check", "watch"):
        result = invoke(checkout, command, "--help")
        assert result.exit_code == 0 and "STEP|FOLDER" in result.output
        assert "practice folder alone" in result.output
