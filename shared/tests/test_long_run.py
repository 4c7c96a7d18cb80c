"""A long scripted run through the real `pi-agent`: 200 turns complete, as in Pi (no limit).

The complete agent sets no turn limit unless `--max-turns` asks for one, so a long real task
is not cut off half done; a run the limit does stop says so on stderr and exits 1. (The
checkpoint tests pin the same behaviour on short runs: a practice copy gives each test five
seconds.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT = Path(sys.executable).parent / "pi-agent"


def script_of(tmp_path: Path, turns: int) -> Path:
    """`turns` scripted turns: each but the last lists the folder, the last answers."""
    lines = ["turns:"]
    lines += [f"  - parts: [{{text: \"turn {n}\"}}, {{toolCall: {{name: ls, arguments: {{}}}}}}]"
              for n in range(1, turns)]
    lines.append(f"  - text: \"done after {turns} turns\"")
    script = tmp_path / "long.yaml"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return script


def agent(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AGENT), "-p", "--script", str(script_of(tmp_path, 200)), "--cwd", str(tmp_path),
         "--agent-dir", str(tmp_path / "agent"), *args, "go"],
        capture_output=True, text=True, timeout=120, check=False)


def test_a_200_turn_scripted_run_completes_with_the_default_settings(tmp_path: Path) -> None:
    done = agent(tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done after 200 turns\n", "")


def test_a_200_turn_run_with_max_turns_150_stops_there_and_says_so(tmp_path: Path) -> None:
    done = agent(tmp_path, "--max-turns", "150")
    assert (done.returncode, done.stdout) == (1, "turn 150\n")
    assert "reached its limit of 150 turns (--max-turns 150)" in done.stderr
