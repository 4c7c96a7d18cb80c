"""A regular install (`pip install .`) carries everything the commands need at run time.

The wheel holds the course tooling, the whole MockModel (`mock_model.http` too, for
`python -m mock_model serve`) and the complete agent: the last checkpoint's `pi` package as
`pi_course_agent/pi`. The package list in pyproject.toml is checked against that checkpoint,
so a new subpackage cannot be forgotten; scripts/check_install.sh then builds the wheel,
installs it into a fresh virtualenv and runs the first commands from an empty folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from pi_course.manifest import load_manifest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def packages_in(folder: Path) -> set[str]:
    """The dotted names of `folder` and the packages inside it, tests left out."""
    return {".".join(init.parent.relative_to(folder.parent).parts)
            for init in folder.rglob("__init__.py")
            if "tests" not in init.relative_to(folder).parts}


def test_the_wheel_carries_the_last_checkpoints_agent_package_by_package() -> None:
    last = load_manifest(ROOT / "checkpoints" / "manifest.toml").steps[-1]
    agent = Path("checkpoints") / last.folder / "pi"
    assert SETUPTOOLS["package-dir"]["pi_course_agent.pi"] == agent.as_posix(), (
        "pyproject.toml must bundle the last checkpoint's agent")
    expected = {"pi_course_agent." + name for name in packages_in(ROOT / agent)}
    listed = {name for name in SETUPTOOLS["packages"] if name.startswith("pi_course_agent.")}
    assert listed == expected


def test_the_wheel_carries_every_mock_model_package_but_its_tests() -> None:
    expected = packages_in(ROOT / "mock_model")
    listed = {name for name in SETUPTOOLS["packages"] if name.startswith("mock_model")}
    assert listed == expected and "mock_model.http" in listed


def test_the_installed_commands_work_from_an_empty_folder_without_a_checkout() -> None:
    site = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHON": sys.executable, "DEPS_FROM": site}
    done = subprocess.run(["bash", str(ROOT / "scripts" / "check_install.sh")], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for check in ("pi-agent --version", "pi-agent -p hello", "python -m mock_model serve --help",
                  "pi-course list outside a checkout says in one line how to point at one"):
        assert f"ok: {check}" in done.stdout
    assert done.stdout.rstrip().endswith("check_install: all checks passed")
