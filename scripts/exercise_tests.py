"""For course authors: which tests judge each exercise, found by stubbing it alone.

For every exercise (or those named), the step's code is rendered with only that exercise
stubbed, the step's tests run, and the tests that fail are the ones that judge it: the tests of
the step's own modules first (tests that merely drive the whole agent, such as the eval driver
or the modes, last), at most 30. With `--write` the lists replace each exercise's `tests` in
checkpoints/manifest.toml; without it they are only printed.

    python scripts/exercise_tests.py                 # every exercise, print only
    python scripts/exercise_tests.py 06-turns --write
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))

from pi_course.manifest import Exercise, load_manifest  # noqa: E402
from pi_course.markers import render  # noqa: E402
from pi_course.paths import PACKAGES, Layout  # noqa: E402
from pi_course.render import source_tests, step_range, step_text, test_files  # noqa: E402

MOST = 30
DRIVERS = ("test_eval_driver", "test_fixture_run", "_cli.py", "test_evals_run", "test_modes_")


def failing_tests(layout: Layout, step: int, exercise: Exercise, home: str = "") -> list[str]:
    manifest = load_manifest(layout.manifest)
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(scratch)
        for rel in manifest.files_until(step):
            text = render((layout.source / rel).read_text(encoding="utf-8"), step, rel,
                          {exercise.id: "stubbed alone"})
            (run / rel).parent.mkdir(parents=True, exist_ok=True)
            (run / rel).write_text(text, encoding="utf-8")
        for rel, text in test_files(layout, step).items():
            (run / rel).parent.mkdir(parents=True, exist_ok=True)
            (run / rel).write_text(text, encoding="utf-8")
        (run / "demo.py").write_text(step_text(layout, manifest.step(step), "demo.py"))
        (run / "data").symlink_to(layout.data)
        (run / "mock_model").symlink_to(layout.mock_model)
        (run / "protocol").symlink_to(layout.root / "shared" / "protocol")
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--tb=native", "-o", "junit_family=xunit1", "-o", "timeout=20",
                        f"--junitxml={run / 'junit.xml'}"], cwd=run, capture_output=True)
        failed: list[str] = []
        for case in ET.parse(run / "junit.xml").getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                node = f"{case.get('file')}::{str(case.get('name')).split('[')[0]}"
                if node not in failed:
                    failed.append(node)
    first = {rel: step_range(text, rel)[0] for rel, text in source_tests(layout).items()}
    own = [t for t in failed if first.get(t.split("::")[0]) == step]
    # The tests of the exercise's own module first (workspace.py → test_tools_workspace.py),
    # then the rest of the step's, then those that drive the whole agent.
    ranked = sorted(own, key=lambda t: (not (home and home in t.split("::")[0]),
                                        any(d in t for d in DRIVERS)))
    return (ranked or failed)[:MOST]


def exercise_home(layout: Layout, exercise: Exercise) -> str:
    """The stem of the source file that holds the exercise (`workspace` for workspace.py)."""
    marker = f"# [exercise {exercise.id}]"
    for path in sorted(p for package in PACKAGES for p in (layout.source / package).rglob("*.py")):
        if marker in path.read_text(encoding="utf-8"):
            return path.stem
    return ""


def write_tests(manifest_path: Path, exercise_id: str, tests: list[str]) -> None:
    text = manifest_path.read_text(encoding="utf-8")
    block = "tests = [\n" + "".join(f'    "{t}",\n' for t in tests) + "]\n"
    pattern = re.compile(r'(\[\[step\.exercise\]\]\nid = "' + re.escape(exercise_id)
                         + r'"\n(?:(?!\[\[step).)*?)tests = \[[^\]]*\]\n', re.S)
    text, found = pattern.subn(lambda m: m.group(1) + block, text, count=1)
    if found != 1:
        raise SystemExit(f"{exercise_id}: no tests line found in {manifest_path}")
    manifest_path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="exercise ids (default: every exercise)")
    parser.add_argument("--write", action="store_true", help="update the manifest")
    args = parser.parse_args()
    layout = Layout(ROOT)
    manifest = load_manifest(layout.manifest)
    for step in manifest.steps:
        for exercise in step.exercises:
            if args.ids and exercise.id not in args.ids:
                continue
            tests = failing_tests(layout, step.id, exercise, exercise_home(layout, exercise))
            print(f"{exercise.id}: {len(tests)} tests", flush=True)
            if not tests:
                print(f"  no test fails when {exercise.id} is stubbed: write one", flush=True)
            elif args.write:
                write_tests(layout.manifest, exercise.id, tests)


if __name__ == "__main__":
    main()
