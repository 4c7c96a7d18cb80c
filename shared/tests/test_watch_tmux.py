"""`pi-course watch` driven in a real terminal: scripts/check_watch_tmux.sh.

The script starts watch in a detached tmux session on a fresh practice copy of step 06, saves
the answers one at a time, presses h and q, and checks the screen after each: both exercises
failing first, each passing within 3 s of its save, the next hint rung, a syntax error and an
endless loop as one line each with the watch going on, the step done with the next command,
and Ctrl-C in the middle of a check leaving no traceback and no test process. Without tmux the
test is skipped, saying what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_watch_tmux.sh"


def test_watch_in_a_real_terminal_rechecks_each_save_climbs_hints_and_survives_hangs() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (Debian: apt-get install -y tmux); "
                    "scripts/check_watch_tmux.sh needs it")
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=180,
                          check=False, env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout + done.stderr
    for check in ("both exercises fail with their first messages", "h shows the next rung",
                  "h climbs to the top rung",
                  "a syntax error is one line with file and line",
                  "an endless loop is stopped after the time limit",
                  "the watch goes on after the stopped check", "the next step's command is named",
                  "q quits with exit code 0",
                  "Ctrl-C leaves no traceback and no test process behind"):
        assert f"ok: {check}" in done.stdout
    assert done.stdout.rstrip().endswith("check_watch_tmux: all checks passed")
