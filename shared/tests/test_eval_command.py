"""`pi-course eval`: the tooling side of the eval harness, and the promises of issue #6.

The first tests use a fake checkout whose checkpoints' `pi` packages implement the driver
contract trivially (and a fake harness that records what it was asked), so the tooling is
tested without the real checkpoints. The last ones build a scratch checkout from the real
marked source (every step from 06 on, the harness of the latest step that has one) and check
what the issue asks: the matrix passes offline and reproducibly, a broken agent is caught,
a practice copy is graded with its exercise named, and the HTML report renders in Chromium.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml  # type: ignore[import-untyped, unused-ignore]

from pi_course.eval_command import eval_command
from pi_course.generate import write_folder
from pi_course.manifest import Manifest, load_manifest
from pi_course.paths import CourseError, Layout
from pi_course.practice import make_practice
from pi_course.render import build

ROOT = Path(__file__).resolve().parents[2]
DRIVER_FILES = ("course/eval_case.py", "course/eval_driver.py")
WIRING = {  # what course/cli.py gains at step 06 and 14; added here only where it is still missing
    "eval-driver": '\nfrom course.eval_driver import eval_driver  # noqa: E402\n\n'
                   'app.command("eval-driver")(eval_driver)\n',
    "evals_app": '\nfrom course.evals_cli import evals_app  # noqa: E402\n\n'
                 'app.add_typer(evals_app, name="evals")\n',
}
RECORDER = """\
import json, os, pathlib, sys
pathlib.Path(os.environ["EVAL_RECORD"]).write_text(json.dumps(
    {"argv": sys.argv[1:], "cwd": os.getcwd()}))
sys.exit(int(os.environ.get("EVAL_EXIT", "0")))
"""
TRIVIAL_DRIVER = """\
import json, pathlib, sys
case = json.loads(pathlib.Path(sys.argv[sys.argv.index("--case") + 1]).read_text())
reply = {"role": "assistant", "content": [{"type": "text", "text": "done"}], "api": "mock",
         "provider": "mock", "model": "mock-1", "stopReason": "stop", "timestamp": 0}
print(json.dumps({"contract": 1, "step": 8, "terminal": "completed", "error": None,
                  "transcript": [{"role": "user", "content": case["prompt"], "timestamp": 0},
                                 reply], "session": None, "events": {}}))
"""
TRIVIAL_CASE = """\
id: trivial
first_checkpoint: 6
prompt: "Anything."
turns: [{text: "done"}]
judges: [{final_text_contains: done}]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def wire(folder: Path) -> None:
    cli = folder / "course" / "cli.py"
    for marker, text in WIRING.items():
        needed = marker == "eval-driver" or (folder / "course" / "evals_cli.py").is_file()
        if needed and marker not in cli.read_text(encoding="utf-8"):
            cli.write_text(cli.read_text(encoding="utf-8") + text, encoding="utf-8")


def eval_exit(root: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> int:
    """Run `pi-course eval` in the checkout at `root`; its exit code."""
    monkeypatch.setenv("PI_COURSE_ROOT", str(root))
    settings: dict[str, Any] = {
        "checkpoint": None, "matrix": False, "practice": None, "suite": None, "report": None,
        "baseline": None, "write_baseline": None, "model": None, "repeats": 1,
    }
    try:
        eval_command(**{**settings, **options})
    except typer.Exit as done:
        return done.exit_code
    raise AssertionError("eval_command always exits")


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with steps 00–08 in its manifest and trivial drivers in 06–08."""
    steps = "".join(f'[[step]]\nid = {n}\nslug = "s{n}"\ntitle = "Step {n}"\n\n' for n in range(9))
    write(tmp_path / "checkpoints" / "manifest.toml", steps)
    for n in (6, 7, 8):
        folder = tmp_path / "checkpoints" / f"{n:02d}_s{n}" / "course"
        write(folder / "__main__.py", TRIVIAL_DRIVER)
        write(folder / "eval_driver.py", "")
    write(tmp_path / "cases" / "trivial.yaml", TRIVIAL_CASE)
    monkeypatch.setenv("EVAL_RECORD", str(tmp_path / "record.json"))
    return tmp_path


def fake_harness(folder: Path) -> None:
    write(folder / "course" / "__main__.py", RECORDER)
    write(folder / "course" / "evals_cli.py", "")


def recorded(fake: Path) -> dict[str, Any]:
    return json.loads((fake / "record.json").read_text(encoding="utf-8"))


def test_without_a_harness_the_command_says_so_in_one_line(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(CourseError, match="no eval harness in this checkout yet"):
        eval_exit(fake, monkeypatch)


def test_the_latest_checkpoint_with_a_harness_runs_it_else_the_marked_source(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_harness(fake / "shared" / "source")
    fake_harness(fake / "checkpoints" / "14_evals")
    assert eval_exit(fake, monkeypatch) == 0
    assert recorded(fake)["cwd"] == str(fake / "checkpoints" / "14_evals")
    shutil.rmtree(fake / "checkpoints" / "14_evals")
    eval_exit(fake, monkeypatch)
    assert recorded(fake)["cwd"] == str(fake / "shared" / "source")


@pytest.mark.parametrize(("options", "expected"), [
    ({}, ["--target", "{root}/checkpoints/08_s8"]),
    ({"checkpoint": "7"}, ["--target", "{root}/checkpoints/07_s7"]),
    ({"matrix": True}, ["--checkpoints", "{root}/checkpoints"]),
    ({"practice": Path("checkpoints/06_s6")}, ["--target", "{root}/checkpoints/06_s6"]),
    ({"report": Path("r.json"), "repeats": 3, "model": "openai/gpt-x"},
     ["--report", "{root}/r.json", "--model", "openai/gpt-x", "--repeats", "3"]),
])
def test_targets_and_options_reach_the_harness_as_absolute_paths(
    fake: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any], expected: list[str]
) -> None:
    fake_harness(fake / "shared" / "source")
    monkeypatch.chdir(fake)
    monkeypatch.setenv("EVAL_EXIT", "3")
    assert eval_exit(fake, monkeypatch, **options) == 3, "the exit code is passed through"
    argv = " ".join(recorded(fake)["argv"])
    assert argv.startswith(f"evals run --suite {fake}/evals/cases ")
    assert " ".join(expected).format(root=fake) in argv


@pytest.mark.parametrize(("options", "message"), [
    ({"matrix": True, "checkpoint": "7"}, "choose one of"),
    ({"checkpoint": "5"}, "step 5 has no eval driver"),
    ({"checkpoint": "seven"}, "not a step number"),
    ({"practice": Path("nowhere")}, "no such practice folder"),
])
def test_impossible_requests_are_one_line(
    fake: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any], message: str
) -> None:
    fake_harness(fake / "shared" / "source")
    with pytest.raises(CourseError, match=message):
        eval_exit(fake, monkeypatch, **options)


def test_the_real_harness_measures_trivial_checkpoints(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "shared" / "source", fake / "shared" / "source",
                    ignore=shutil.ignore_patterns("__pycache__", "tests"))
    wire(fake / "shared" / "source")
    report = fake / "report.json"
    assert eval_exit(fake, monkeypatch, matrix=True, suite=fake / "cases", report=report) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [(r["checkpoint"], r["outcome"]) for r in data["results"]] == [
        ("06", "passed"), ("07", "passed"), ("08", "passed")]


# The promises of issue #6, on a scratch checkout built from the real marked source.

def course_manifest() -> Manifest:
    """The manifest, with the eval driver at step 06 if the record does not list it yet."""
    manifest = load_manifest(ROOT / "checkpoints" / "manifest.toml")
    steps = list(manifest.steps)
    if "course/eval_driver.py" not in steps[6].files:
        steps[6] = replace(steps[6], files=(*steps[6].files, *DRIVER_FILES))
    return Manifest(tuple(steps))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Checkpoints 06 on rendered from the source, the harness, and the real suites."""
    root = tmp_path_factory.mktemp("checkout")
    manifest = course_manifest()
    (root / "checkpoints").mkdir()
    shutil.copy(ROOT / "checkpoints" / "manifest.toml", root / "checkpoints" / "manifest.toml")
    for step in (s for s in manifest.steps if s.id >= 6):
        folder = root / "checkpoints" / step.folder
        write_folder(folder, build(Layout(ROOT), manifest, step.id))
        wire(folder)
    shutil.copytree(ROOT / "shared" / "source", root / "shared" / "source",
                    ignore=shutil.ignore_patterns("__pycache__", "tests"))
    wire(root / "shared" / "source")
    (root / "evals").symlink_to(ROOT / "evals")
    return root


def latest(scratch: Path) -> Path:
    return sorted((scratch / "checkpoints").glob("[0-9][0-9]_*"))[-1]


@pytest.fixture(scope="module")
def matrix_run(scratch: Path) -> dict[str, Path]:
    out = scratch / "out"
    with pytest.MonkeyPatch.context() as patch:
        eval_exit(scratch, patch, matrix=True, report=out / "1.json",
                  write_baseline=out / "baseline.json")
    return {"report": out / "1.json", "baseline": out / "baseline.json"}


def test_the_matrix_runs_every_case_where_it_applies_and_all_pass_offline(
    matrix_run: dict[str, Path]
) -> None:
    data = json.loads(matrix_run["report"].read_text(encoding="utf-8"))
    assert len(data["results"]) >= 18 and "06" in data["checkpoints"]
    failed = [f"{r['case']} @ {r['checkpoint']}" for r in data["results"]
              if r["outcome"] != "passed"]
    assert not failed


def test_the_same_command_twice_gives_byte_identical_reports(
    scratch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = latest(scratch).name[:2]
    for name in ("1.json", "2.json"):
        eval_exit(scratch, monkeypatch, checkpoint=step, report=tmp_path / name)
    assert (tmp_path / "1.json").read_bytes() == (tmp_path / "2.json").read_bytes()


def test_a_copy_whose_loop_drops_a_tool_result_fails_the_protocol_and_the_baseline(
    scratch: Path, matrix_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / latest(scratch).name
    shutil.copytree(latest(scratch), broken)
    batch = broken / "pi" / "agent" / "tool_batch.py"
    text = batch.read_text(encoding="utf-8")
    dropped = text.replace("        record(result)\n", "        if getattr(self, 'dropped', 0):\n"
                           "            record(result)\n        self.dropped = 1\n")
    assert dropped != text
    batch.write_text(dropped, encoding="utf-8")
    report = tmp_path / "broken.json"
    assert eval_exit(scratch, monkeypatch, practice=broken, report=report,
                     baseline=matrix_run["baseline"]) == 1
    before = json.loads(matrix_run["baseline"].read_text(encoding="utf-8"))["results"]
    passed = {r["case"]: r for r in before if r["checkpoint"] == broken.name[:2]
              and r["outcome"] == "passed"}
    now = {r["case"]: r["outcome"] for r in json.loads(report.read_text(encoding="utf-8"))[
        "results"] if r["case"] in passed}
    # A case that calls tools loses a result: its active path, or the history behind a
    # compaction, shows the call without it. A case without tools is not affected.
    with_tools = {case for case in passed if uses_tools(scratch / "evals" / "cases", case)}
    assert with_tools and {now[case] for case in with_tools} == {"protocol_failed"}
    assert {now[case] for case in set(passed) - with_tools} == {"passed"}


def uses_tools(suite: Path, case_id: str) -> bool:
    for file in suite.glob("*.yaml"):
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        if data["id"] == case_id:
            return bool(data.get("tools"))
    raise AssertionError(f"no case {case_id} in {suite}")


def test_a_practice_copy_of_step_06_is_graded_with_its_exercise_named(
    scratch: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "my-06"
    make_practice(Layout(ROOT), course_manifest(), 6, copy)
    wire(copy)
    report = tmp_path / "practice.json"
    assert eval_exit(scratch, monkeypatch, practice=copy, report=report) == 1
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert results and all(r["outcome"] in ("infra_failed", "task_failed") for r in results)
    assert {r["exercise"] for r in results} == {"06-turns"}


def test_the_held_out_suite_passes_on_the_latest_checkpoint(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held_out = scratch / "evals" / "held_out"
    assert eval_exit(scratch, monkeypatch, practice=latest(scratch), suite=held_out) == 0
