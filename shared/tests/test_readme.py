"""Every example of the README works as written, and works again when repeated.

A workshop types the README's commands, often twice. Each line of each ```bash block is run in
order, in one shell, and then the whole list once more; every line must end with the exit
code it is meant to have both times, and the buggy-calc run must fix the bug both times. The
lines run in a scratch folder that looks like the repository root (`shared` links to the real
one, PI_COURSE_ROOT names the checkout, HOME is scratch too), so files the examples write
(p02, base.json, sessions) never land in the checkout. `./pi-course` and `./pi-agent` are
replaced by the commands of this very environment: the bootstrap script itself is tested on
its own (test_bootstrap.py), and here it would set up a second venv.

A few lines are too long to run twice inside the test suite; each is named in LONG with the
reason, and must still be in the README (a stale entry fails).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"```bash\n(.*?)```", re.DOTALL)
LONG = {
    "./pi-course test": "the whole suite, this test included; it is what CI runs",
    "./pi-course test 02 03": "two checkpoint suites; their tests run in the suite already",
    "./pi-course verify": "about 20 s; CI runs it (.ci/run) and the lead before each merge",
    "./pi-course eval --matrix": "every case on every checkpoint: minutes; CI's eval job",
    "./pi-course eval --write-baseline base.json": "the whole eval suite on the last step",
    "./pi-course practice 06 p06 && ./pi-course eval --practice p06 --report r.json "
    "--baseline base.json": "needs base.json, written by the baseline line above (long)",
    "./pi-course watch 02 p02": "runs until q or Ctrl-C; scripts/check_watch_tmux.sh drives it",
}
EXIT_CODES = {"./pi-course check 02 p02": 1}  # a fresh stub does not pass its exercise: 1


def command_of(line: str) -> str:
    """The line without its trailing `# comment`, as the table keys name it."""
    return re.sub(r"\s+#\s.*$", "", line).strip()


def readme_examples() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [line for block in BLOCK.findall(text) for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def runnable(lines: list[str]) -> list[str]:
    return [line for line in lines if command_of(line) not in LONG]


def shell_script(lines: list[str]) -> str:
    """Each line in braces (so `calc=…` stays set), stdin closed, then its exit code."""
    steps = []
    for index, line in enumerate(lines):
        command = line.replace("./pi-course", f"{BIN}/pi-course").replace(
            "./pi-agent", f"{BIN}/pi-agent")
        steps.append(f"echo '@@start {index}'\n{{ {command}\n}} </dev/null 2>&1\n"
                     f"echo \"@@end {index} $?\"")
    return "\n".join(steps) + "\n"


def run_twice(scratch: Path, lines: list[str]) -> list[dict[int, tuple[int, str]]]:
    """{line index: (exit code, output)} for each of the two rounds."""
    (scratch / "home").mkdir()
    (scratch / "shared").symlink_to(ROOT / "shared")
    env = {**os.environ, "HOME": str(scratch / "home"), "PI_COURSE_ROOT": str(ROOT),
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "120",
           "NO_COLOR": "1", "PI_COURSE_DETERMINISTIC": ""}
    rounds = []
    for _ in range(2):
        done = subprocess.run(["bash", "-c", shell_script(lines)], cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        found = re.findall(r"@@start (\d+)\n(.*?)@@end \1 (\d+)\n", done.stdout, re.DOTALL)
        rounds.append({int(i): (int(code), output) for i, output, code in found})
    return rounds


def test_every_long_example_named_apart_is_still_in_the_readme() -> None:
    commands = {command_of(line) for line in readme_examples()}
    assert set(LONG) <= commands
    assert set(EXIT_CODES) <= commands


@pytest.mark.timeout(900)
def test_every_readme_example_works_twice_in_a_row(tmp_path: Path) -> None:
    lines = runnable(readme_examples())
    assert any("fix-buggy-calc.yaml" in line for line in lines)
    rounds = run_twice(tmp_path, lines)
    for number, results in enumerate(rounds, start=1):
        for index, line in enumerate(lines):
            assert index in results, f"round {number}: `{line}` did not finish"
            code, output = results[index]
            expected = EXIT_CODES.get(command_of(line), 0)
            assert code == expected, f"round {number}: `{line}` exited {code}:\n{output}"
            if "fix-buggy-calc.yaml" in line:
                assert "Fixed: `add` in calc.py" in output, f"round {number}: {output}"
