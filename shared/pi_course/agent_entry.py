"""The installed `pi-agent` command: the newest agent of this checkout, run in-process.

Every checkpoint is a package named `pi`, so the command must choose one before importing
anything: the latest checkpoint folder that has `pi/agent_main.py` (step 13 on), or the
marked source in `shared/source` while no checkpoint has it yet. That folder goes first on
`sys.path` and its `pi.agent_main.app` runs in this process, so the working directory stays
the one the person started the command in: the agent's workspace, not the checkout.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

from pi_course.paths import CourseError, Layout, find_layout

CHECKPOINT = re.compile(r"^(\d{2})_[\w-]+$")
AGENT_MAIN = Path("pi") / "agent_main.py"


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


def main() -> None:
    try:
        folder = agent_folder(find_layout(Path(__file__).resolve().parent))
    except CourseError as error:
        print(f"pi-agent: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.path.insert(0, str(folder))
    app = importlib.import_module("pi.agent_main").app
    app(prog_name="pi-agent")
