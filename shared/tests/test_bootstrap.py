"""`./pi-course` and `./pi-agent` set up `.venv` on first use, then only check a stamp.

The real set-up (a venv and `pip install -e ".[test]"`) takes a minute, so here the Python
that creates the venv is a small fake that records what it was asked to do: the script's own
logic (when to set up, what to run afterwards, with which arguments) is what is tested.
The real thing is tried on a fresh clone by hand and by CI (`.ci/run` runs `./pi-course test`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/usr/bin/env bash
# Fake python3: `-m venv DIR` makes a venv whose python logs pip calls and installs the
# commands as scripts that print their name, their arguments and VIRTUAL_ENV.
if [[ "$1" == -c ]]; then exit 0; fi
if [[ "$1 $2" == "-m venv" ]]; then
    mkdir -p "$3/bin"
    cat >"$3/bin/python" <<'PY'
#!/usr/bin/env bash
if [[ "$1" == -c ]]; then exit 0; fi
echo "pip $*" >>"$(dirname "$0")/../../setup.log"
for name in pi-course pi-agent; do
    printf '#!/usr/bin/env bash\\necho "%s $* in=$VIRTUAL_ENV"\\n' "$name" >"$(dirname "$0")/$name"
    chmod +x "$(dirname "$0")/$name"
done
PY
    chmod +x "$3/bin/python"
    echo "venv" >>"$(dirname "$3")/setup.log"
fi
"""


def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    root.mkdir()
    shutil.copy(ROOT / "pi-course", root / "pi-course")
    (root / "pi-agent").symlink_to("pi-course")
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    return root


def run(root: Path, command: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env["PYTHON"] = str(root.parent / "python3")
    return subprocess.run([str(root / command), *args], cwd=root.parent, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def setup_log(root: Path) -> list[str]:
    log = root / "setup.log"
    return log.read_text(encoding="utf-8").splitlines() if log.is_file() else []


def test_the_first_run_sets_up_the_venv_then_runs_the_command_in_it(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    done = run(root, "pi-course", "demo", "02")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"pi-course demo 02 in={root / '.venv'}\n"
    assert setup_log(root)[0] == "venv"
    assert setup_log(root)[1].startswith("pip -m pip install") and f"-e {root}[test]" in (
        setup_log(root)[1])


def test_a_second_run_reuses_the_set_up_and_the_agent_link_shares_it(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    run(root, "pi-course", "list")
    first = setup_log(root)
    again = run(root, "pi-course", "list")
    agent = run(root, "pi-agent", "-p", "hello")
    assert setup_log(root) == first and again.stderr == "" and agent.stderr == ""
    assert agent.stdout == f"pi-agent -p hello in={root / '.venv'}\n"


def test_a_changed_pyproject_installs_again_into_the_same_venv(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    run(root, "pi-course", "list")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write("version = '2'\n")
    done = run(root, "pi-course", "list")
    assert done.returncode == 0
    assert [line.split()[0] for line in setup_log(root)] == ["venv", "pip", "pip"]


def test_a_python_older_than_3_11_is_refused_in_one_line(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    old = tmp_path / "python3"
    old.write_text("#!/usr/bin/env bash\n[[ $1 == -V ]] && echo 'Python 3.9.1'\nexit 1\n",
                   encoding="utf-8")
    done = run(root, "pi-course", "list")
    assert done.returncode == 2
    assert done.stderr == "pi-course: needs Python 3.11 or newer; " + str(old) + (
        " is Python 3.9.1\n")
