"""Fakes for the harness tests of step 14: eval drivers that do exactly what a test plans.

A fake driver is a tiny Python script: it reads the case and the workspace like a real one,
then prints the planned stdout (by default a well-formed observation whose answer lists the
files it found in the workspace), sleeps, writes files or exits as planned. A fake checkpoint
is a folder whose `course` package is such a driver, so `python -m course eval-driver` works there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DRIVER = """\
import json, pathlib, sys, time
args = sys.argv[1:]
plan = json.loads(pathlib.Path({plan!r}).read_text())
case = json.loads(pathlib.Path(args[args.index("--case") + 1]).read_text())
workspace = pathlib.Path(args[args.index("--workspace") + 1])
found = " ".join(sorted(p.name for p in workspace.iterdir())) or "nothing"
for name, text in plan.get("write", {{}}).items():
    (workspace / name).write_text(text)
time.sleep(plan.get("sleep", 0))
reply = {{"role": "assistant", "content": [{{"type": "text", "text": "found: " + found}}],
         "api": "mock", "provider": "mock", "model": "mock-1", "stopReason": "stop",
         "timestamp": 0}}
observation = {{"contract": 1, "step": 14, "terminal": "completed", "error": None,
               "transcript": [{{"role": "user", "content": case["prompt"], "timestamp": 0}},
                              reply], "session": None, "events": {{"agent_end": 1}}}}
observation.update(plan.get("observation", {{}}))
print(plan.get("stdout", json.dumps(observation)))
sys.stderr.write(plan.get("stderr", ""))
sys.exit(plan.get("exit", 0))
"""


def fake_driver(folder: Path, **plan: Any) -> tuple[str, ...]:
    """Write a fake driver into `folder`; the command that runs it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    script = folder / "fake_driver.py"
    script.write_text(DRIVER.format(plan=str(folder / "plan.json")), encoding="utf-8")
    return (sys.executable, str(script))


def fake_checkpoint(folder: Path, **plan: Any) -> Path:
    """A checkpoint folder whose `python -m course eval-driver` is a fake driver."""
    fake_driver(folder / "course", **plan)
    (folder / "course" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "course" / "eval_driver.py").write_text("# the driver is __main__\n",
                                                      encoding="utf-8")
    (folder / "course" / "fake_driver.py").rename(folder / "course" / "__main__.py")
    return folder


def write_case(suite: Path, name: str, text: str) -> Path:
    suite.mkdir(parents=True, exist_ok=True)
    file = suite / f"{name}.yaml"
    file.write_text(text, encoding="utf-8")
    return file


SIMPLE_CASE = """\
id: {id}
first_checkpoint: 6
prompt: "Say what you found."
turns: [{{text: "unused by fake drivers"}}]
judges:
  - final_text_contains: "found:"
"""
