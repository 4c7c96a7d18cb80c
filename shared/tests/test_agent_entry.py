"""The `pi-agent` entry point picks the newest agent of the checkout and keeps the cwd."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_course.agent_entry import agent_folder, choose_folder
from pi_course.paths import CourseError, Layout

FAKE_MAIN = """\
import os, sys
from pathlib import Path

def app(prog_name):
    print(prog_name, Path(__file__).parents[2].name, os.getcwd(), sys.argv[1:])
"""


def checkout(root: Path, with_main: list[str]) -> Layout:
    """A checkout whose checkpoints (and `source`) have pi/modes/main.py where listed."""
    (root / "checkpoints").mkdir(parents=True)
    (root / "checkpoints" / "manifest.toml").write_text("", encoding="utf-8")
    for name in ("12_extensions", "13_runtime", "14_evals", "source"):
        folder = root / "shared" / name if name == "source" else root / "checkpoints" / name
        (folder / "pi" / "modes").mkdir(parents=True)
        (folder / "pi" / "__init__.py").write_text("", encoding="utf-8")
        (folder / "pi" / "modes" / "__init__.py").write_text("", encoding="utf-8")
        if name in with_main:
            (folder / "pi" / "modes" / "main.py").write_text(FAKE_MAIN, encoding="utf-8")
    return Layout(root)


def test_the_latest_checkpoint_with_an_agent_wins(tmp_path: Path) -> None:
    layout = checkout(tmp_path, ["12_extensions", "13_runtime", "source"])
    assert agent_folder(layout) == tmp_path / "checkpoints" / "13_runtime"


def test_the_marked_source_is_used_while_no_checkpoint_has_an_agent(tmp_path: Path) -> None:
    assert agent_folder(checkout(tmp_path, ["source"])) == tmp_path / "shared" / "source"


def test_no_agent_anywhere_is_a_course_error(tmp_path: Path) -> None:
    with pytest.raises(CourseError, match="arrives at step 13"):
        agent_folder(checkout(tmp_path, []))


def test_the_command_runs_in_process_and_keeps_the_working_directory(tmp_path: Path) -> None:
    checkout(tmp_path / "course", ["13_runtime", "14_evals"])
    workspace = tmp_path / "my-project"
    workspace.mkdir()
    env = {**os.environ, "PI_COURSE_ROOT": str(tmp_path / "course")}
    done = subprocess.run(
        [sys.executable, "-c", "from pi_course.agent_entry import main; main()", "-p", "hi"],
        cwd=workspace, env=env, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(" ", 3) == ["pi-agent", "14_evals", str(workspace),
                                         "['-p', 'hi']\n"]


HELP_PROBE = """\
import sys
from pi_course.agent_entry import main
sys.argv = ["pi-agent", "--help"]
try:
    main()
except SystemExit:
    pass
heavy = ("pi.coding_agent", "pi.modes.setup", "pi.ai.providers.openai_completions", "httpx",
         "rich.console")
print("HEAVY", [name for name in heavy if name in sys.modules])
"""


def test_help_imports_no_agent_provider_or_tool() -> None:
    """`pi-agent --help` must start quickly: the runtime, providers and tools are imported
    only when a mode runs (speed lives in benchmarks/loop_bench.py; this guards the cause)."""
    done = subprocess.run([sys.executable, "-c", HELP_PROBE], capture_output=True, text=True,
                          check=False, timeout=60)
    assert "--mode" in done.stdout, done.stderr
    assert done.stdout.strip().endswith("HEAVY []")


def test_a_regular_install_runs_the_agent_bundled_next_to_the_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_COURSE_ROOT", raising=False)
    site = tmp_path / "site-packages"
    (site / "pi_course").mkdir(parents=True)
    (site / "pi_course_agent" / "pi" / "modes").mkdir(parents=True)
    (site / "pi_course_agent" / "pi" / "modes" / "main.py").write_text(FAKE_MAIN,
                                                                       encoding="utf-8")
    assert choose_folder(site / "pi_course") == site / "pi_course_agent"


def test_an_editable_install_runs_its_own_checkouts_newest_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_COURSE_ROOT", raising=False)
    checkout(tmp_path, ["13_runtime"])
    package = tmp_path / "shared" / "pi_course"
    package.mkdir(parents=True)
    assert choose_folder(package) == tmp_path / "checkpoints" / "13_runtime"


def test_no_checkout_and_no_bundle_says_how_to_fix_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_COURSE_ROOT", raising=False)
    (tmp_path / "pi_course").mkdir()
    with pytest.raises(CourseError, match="PI_COURSE_ROOT"):
        choose_folder(tmp_path / "pi_course")


def test_a_pi_course_root_that_is_no_checkout_is_named_in_the_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_COURSE_ROOT", str(tmp_path))
    from pi_course.paths import find_layout

    with pytest.raises(CourseError, match=f"PI_COURSE_ROOT={tmp_path} is not a pi-course"):
        find_layout()
