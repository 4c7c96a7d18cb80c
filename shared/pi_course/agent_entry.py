"""The installed `pi-agent` command: the complete agent, run in-process, from any folder.

Every checkpoint is a package named `pi`, so the command must choose one before importing
anything. In a checkout (an editable install, or `PI_COURSE_ROOT` naming one) it is the
newest agent there: the latest checkpoint folder that has `pi/modes/main.py` (step 13 on), or
the marked source in `shared/source` while no checkpoint has it yet, so a change you just
generated is the one you run. A regular install (`pip install .`, pipx, `uv tool install`)
has no checkout: the wheel carries the last checkpoint's package as `pi_course_agent/pi`, next
to this one. The chosen folder goes first on `sys.path` and its `pi.modes.main.app` runs in
this process, so the working directory stays the one the person started the command in.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path

from pi_course.paths import CourseError, Layout, checkout_around, find_layout

CHECKPOINT = re.compile(r"^(\d{2})_[\w-]+$")
AGENT_MAIN = Path("pi") / "modes" / "main.py"
BUNDLE = "pi_course_agent"  # pyproject.toml packages the last checkpoint's `pi` under this


def agent_folder(layout: Layout) -> Path:
    """The folder whose `pi` package the command runs; CourseError when there is none."""
    numbered = sorted(
        (int(match.group(1)), folder)
        for folder in (layout.checkpoints.iterdir() if layout.checkpoints.is_dir() else ())
        if folder.is_dir() and (match := CHECKPOINT.match(folder.name))
    )
    for _, folder in reversed(numbered):
        if (folder / AGENT_MAIN).is_file():
            return folder
    if (layout.source / AGENT_MAIN).is_file():
        return layout.source
    raise CourseError(f"no checkpoint in {layout.checkpoints} and no {layout.source} has "
                      f"{AGENT_MAIN}; the agent command arrives at step 13")


def bundled_folder(site: Path) -> Path | None:
    """`<site-packages>/pi_course_agent` when the wheel put the agent there."""
    folder = site / BUNDLE
    return folder if (folder / AGENT_MAIN).is_file() else None


def choose_folder(package_dir: Path) -> Path:
    """PI_COURSE_ROOT's checkout, or the one this package lives in, else the bundled agent."""
    if os.environ.get("PI_COURSE_ROOT"):
        return agent_folder(find_layout())
    layout = checkout_around(package_dir)
    if layout is not None:
        return agent_folder(layout)
    bundled = bundled_folder(package_dir.parent)
    if bundled is None:
        raise CourseError("no agent installed next to pi_course and no checkout found: "
                          "reinstall with `pip install .`, or set PI_COURSE_ROOT to a "
                          "pi-course checkout")
    return bundled


def main() -> None:
    try:
        folder = choose_folder(Path(__file__).resolve().parent)
    except CourseError as error:
        print(f"pi-agent: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.path.insert(0, str(folder))
    app = importlib.import_module("pi.modes.main").app
    app(prog_name="pi-agent")
