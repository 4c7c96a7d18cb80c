"""Step 14 demo: one eval case through every phase, then what a broken agent and a stub look like.

The harness normally runs each checkpoint's driver as a subprocess (`python -m course eval-driver`);
to stay well under a second this demo calls the same `drive` function in-process. Everything
after the observation is exactly what `python -m course evals run` does.
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from course.eval_driver import drive
from course.evals.cases import Expect, load_case
from course.evals.driver_client import Observation
from course.evals.judges import command_judge, judge_view, run_judges
from course.evals.matrix import pass_at_k
from course.evals.outcomes import Check, Outcome, infra, path_stats, verdict
from course.evals.protocol_checks import check_protocol
from course.evals.workspace import dispose, driver_case, prepare, read_declared

HERE = Path(__file__).resolve().parent
CASE = """\
id: fix-buggy-calc
first_checkpoint: 7
prompt: "test_calc.py fails. Please fix the bug."
workspace: buggy-calc
script: fix-buggy-calc.yaml
tools: [read, edit, bash]
files: [calc.py]
judges:
  - read_before_edit: calc.py
  - file_contains: {path: calc.py, text: "return a + b"}
  - command: "python test_calc.py"
"""


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "workspaces").is_dir():
                return candidate
    raise SystemExit("no data folder found")


def show(title: str, checks: tuple[Check, ...], outcome: Outcome) -> None:
    print(title)
    for check in checks:
        detail = f" ({check.detail})" if not check.passed and check.detail else ""
        print(f"  {'ok    ' if check.passed else 'FAILED'} {check.name}{detail}")
    print(f"  outcome: {outcome.status}, phase {outcome.phase}, code {outcome.code}\n")


def main() -> None:
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with tempfile.TemporaryDirectory() as scratch:
        root, data = Path(scratch), data_dir()
        shutil.copytree(data / "workspaces" / "buggy-calc", root / "workspaces" / "buggy-calc")
        shutil.copytree(data / "scripts", root / "scripts")
        (root / "cases").mkdir()
        (root / "cases" / "fix.yaml").write_text(CASE, encoding="utf-8")
        case = load_case(root / "cases" / "fix.yaml")
        run = prepare(case, lambda: Path(tempfile.mkdtemp(dir=scratch)))
        print(f"prepare: a fresh copy of {case.workspace.name} and case.json for the driver")
        raw = asyncio.run(drive(driver_case(case), run.workspace))
        seen = Observation.model_validate(raw)
        print(f"execute: terminal {seen.terminal!r}, {len(seen.transcript)} messages, "
              f"{seen.events['tool_execution_end']} tool executions")
        files = read_declared(run.workspace, case.spec.files)
        protocol = check_protocol(seen, Expect())
        judged = run_judges(case.spec.judges, judge_view(seen.transcript, files),
                            {"command": command_judge(run.workspace)})
        outcome = verdict(case.id, 14, protocol, judged, path_stats(seen.transcript, len(files)))
        show("\nprotocol checks, then judges:", (*protocol, *judged), outcome)
        print(f"stats for the report: {json.dumps(dict(outcome.stats), sort_keys=True)}\n")

        first = next(m["toolCallId"] for m in seen.transcript if m["role"] == "toolResult")
        dropped = [m for m in seen.transcript if m.get("toolCallId") != first]
        broken = Observation(step=seen.step, terminal="completed", transcript=tuple(dropped))
        checks = check_protocol(broken, Expect())
        show("the same run with one tool result dropped:", checks,
             verdict(case.id, 14, checks, (), {}))
        dispose(run)
        print(f"dispose: the run folder is gone: {not run.root.exists()}\n")

    stub = infra("plain-answer", 6, "execute", "agent_crashed",
                 "NotImplementedError: exercise 06-turns: Loop at most max_turns times ...")
    print(f"a practice stub: {stub.status} ({stub.phase}/{stub.code}), exercise {stub.exercise}")
    print(f"2 passes in 5 runs: pass@1 = {pass_at_k(5, 2, 1):.2f}, "
          f"pass@3 = {pass_at_k(5, 2, 3):.2f}")


if __name__ == "__main__":
    main()
