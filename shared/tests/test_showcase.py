"""`pi-course demo` with no step: the agent at work, printed the same way on every run."""

import io
from pathlib import Path

from pytest_snapshot.plugin import Snapshot
from rich.console import Console

from pi_course.paths import Layout, find_layout
from pi_course.showcase import describe_call, preview, showcase, workspace_diff

ROOT = find_layout(Path(__file__)).root
SNAPSHOTS = ROOT / "shared" / "data" / "snapshots" / "test_showcase"


def recorded_showcase() -> tuple[int, str]:
    console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
    code = showcase(Layout(ROOT), console)
    return code, console.export_text()


def test_the_demo_prints_the_agent_at_work_exactly_as_recorded(snapshot: Snapshot) -> None:
    code, text = recorded_showcase()
    assert code == 0, text
    for line in ("● read  test_calc.py", "● read  calc.py", "● edit  calc.py (1 replacement)",
                 "● bash  $ python test_calc.py", "-    return a - b", "+    return a + b"):
        assert line in text.splitlines() or f"    {line}" in text, line
    assert text.rstrip().splitlines()[-1].startswith("eval fix-buggy-calc on step 14: passed")
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(text, "showcase.txt")


def test_a_call_is_one_line_a_person_would_say() -> None:
    assert describe_call("read", {"path": "calc.py"}) == "read  calc.py"
    assert describe_call("bash", {"command": "ls -a"}) == "bash  $ ls -a"
    edit = describe_call("edit", {"path": "a.py", "edits": [{}, {}]})
    assert edit == "edit  a.py (2 replacements)"
    grep = describe_call("grep", {"pattern": "x", "path": "."})
    assert grep == 'grep  {"path": ".", "pattern": "x"}'


def test_a_preview_skips_blank_lines_shortens_long_ones_and_counts_the_rest() -> None:
    assert preview("one\n\ntwo\nthree\nfour\nfive\n") == ["one", "two", "three", "… 2 more lines"]
    assert preview("") == ["(no output)"]
    long = preview("x" * 200)[0]
    assert len(long) == 72 and long.endswith("…")


def test_the_fix_is_a_diff_of_every_changed_file() -> None:
    before = {"a.py": "x = 1\n", "b.py": "same\n"}
    diff = workspace_diff(before, {**before, "a.py": "x = 2\n", "c.py": "new\n"})
    assert "--- a/a.py\n+++ b/a.py" in diff and "-x = 1\n+x = 2\n" in diff
    assert "+++ b/c.py" in diff and "b.py" not in diff
