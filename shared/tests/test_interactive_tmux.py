"""The interactive mode (step 13) driven in a real terminal: scripts/check_interactive_tmux.sh.

The script starts the mode in a detached tmux session on the MockModel, types a prompt and
the commands, and checks the screen: streamed reply text, a tool call line and a preview of
its result, `/fork` listing the user messages, `/compact` with its result, line editing and Up
recalling the previous prompt. It runs on the marked source, so it needs no
generated checkpoint. Without tmux the test is skipped, saying what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_interactive_tmux.sh"


def test_interactive_mode_in_a_real_terminal_edits_recalls_previews_and_runs_commands() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (Debian: apt-get install -y tmux); "
                    "scripts/check_interactive_tmux.sh needs it")
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                          check=False, env={**os.environ, "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout + done.stderr
    for check in ("streamed reply text", "a tool call line", "a tool result preview",
                  "/fork lists the user messages", "/compact printed its result",
                  "line editing: Home then / made /model", "Up recalls the previous prompt"):
        assert f"ok: {check}" in done.stdout
    assert done.stdout.rstrip().endswith("check_interactive_tmux: all checks passed")
