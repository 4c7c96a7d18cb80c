"""The course's speed targets in one command: opening sessions (session_bench.py) and the
loop, the installed command, streaming and start-up (loop_bench.py).

    python benchmarks/run.py            # both benchmarks, then one line: targets met of all
    python benchmarks/run.py --quick    # the loop benchmark's smoke-test sizes

The targets are few and plain: the loop's cost per turn stays flat, `pi-agent --mode json`
grows linearly with turns, and opening a session is linear, near the cost of decoding its
JSON, in a few times the file's memory. Every other figure is shown, not judged. Each
benchmark measures its ratios side by side in its own run (real Pi's Agent beside ours where
the oracle's Pi is installed). The exit code is 0 only when every target is met. Nothing
here is a test: machines differ. `stream_bench.py` (a 1 MB tool call sent a byte at a time
through `pi-agent -p`) is a separate demonstration with no target.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOTAL = re.compile(r"(\d+) of (\d+) targets met")


def run(script: str, *args: str) -> tuple[int, int]:
    """Run one benchmark with its output shown as it comes; (targets met, targets)."""
    process = subprocess.Popen([sys.executable, str(HERE / script), *args],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    last = (0, 1)  # a benchmark that never printed its total counts as one missed target
    for line in process.stdout:
        sys.stdout.write(line)
        if found := TOTAL.search(line):
            last = (int(found[1]), int(found[2]))
    process.wait()
    return last


def main(argv: list[str]) -> int:
    sessions = run("session_bench.py")
    loop = run("loop_bench.py", *(["--quick"] if "--quick" in argv else []))
    met = sessions[0] + loop[0]
    total = sessions[1] + loop[1]
    print(f"\nall benchmarks: {met} of {total} targets met")
    return 0 if met == total else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
