"""Practice copies: never overwrite, refuse non-copies, carry what their tests need.

The per-step proof that each copy is a real exercise is in test_practice_early/late.py.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_course.exercises import solution_leaks, solution_lines
from pi_course.manifest import load_manifest
from pi_course.paths import CourseError, Layout, find_layout
from pi_course.practice import check_practice, make_practice
from pi_course.render import build

LAYOUT: Layout = find_layout(Path(__file__))
MANIFEST = load_manifest(LAYOUT.manifest)


def test_practice_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("my work")
    with pytest.raises(CourseError, match="already exists"):
        make_practice(LAYOUT, MANIFEST, 2, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "my work"


def test_check_refuses_a_folder_that_is_not_a_practice_copy(tmp_path: Path) -> None:
    with pytest.raises(CourseError, match="not a practice copy"):
        check_practice(LAYOUT, MANIFEST, 2, tmp_path)


def test_a_practice_copy_carries_what_its_tests_need(tmp_path: Path) -> None:
    make_practice(LAYOUT, MANIFEST, 1, tmp_path / "p01")
    for needed in ("mock_model/__init__.py", "data/pi-reference/sessions",
                   "protocol/pi-ai.schema.json", "conftest.py", "README.md"):
        assert (tmp_path / "p01" / needed).exists(), needed


def test_the_copy_shows_stubs_not_answers_in_its_diff_and_chapter(tmp_path: Path) -> None:
    copy = tmp_path / "p06"
    make_practice(LAYOUT, MANIFEST, 6, copy)
    stub = "raise NotImplementedError('exercise 06-turns:"
    for name in ("CHANGES.diff", "pi/agent/loop.py"):
        assert stub in (copy / name).read_text(encoding="utf-8"), name
    shown = {name: (copy / name).read_text(encoding="utf-8")
             for name in ("CHANGES.diff", "CHAPTER.md", "README.md")}
    solved = {str(p.relative_to(LAYOUT.checkpoints / "06_loop")): p.read_text(encoding="utf-8")
              for p in (LAYOUT.checkpoints / "06_loop" / "pi").rglob("*.py")}
    mine = {str(p.relative_to(copy)): p.read_text(encoding="utf-8")
            for p in (copy / "pi").rglob("*.py")}
    answers = solution_lines(solved, mine)
    assert answers and solution_leaks(answers, shown) == []


def test_updating_snapshots_inside_the_copy_changes_nothing_check_reports(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "p02"
    make_practice(LAYOUT, MANIFEST, 2, copy)
    before = [r.as_json() for r in check_practice(LAYOUT, MANIFEST, 2, copy)]
    subprocess.run([sys.executable, "-m", "pytest", "-q", "--snapshot-update", "-p",
                    "no:cacheprovider"], cwd=copy, capture_output=True, check=False)
    for test in (copy / "tests").glob("test_*.py"):  # a learner may even gut the copy's tests
        test.write_text("def test_nothing() -> None:\n    pass\n")
    after = [r.as_json() for r in check_practice(LAYOUT, MANIFEST, 2, copy)]
    assert after == before
    assert all(r["status"] == "fail" for r in after)


def test_check_json_names_each_exercise_with_its_failing_tests(tmp_path: Path) -> None:
    copy = tmp_path / "p08"
    make_practice(LAYOUT, MANIFEST, 8, copy)
    result = subprocess.run(
        [sys.executable, "-m", "pi_course.cli", "check", "08", str(copy), "--json"],
        capture_output=True, text=True, check=False, cwd=LAYOUT.root,
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["step"] == "08"
    alone = subprocess.run(  # the folder alone: a practice copy knows its step
        [sys.executable, "-m", "pi_course.cli", "check", str(copy), "--json"],
        capture_output=True, text=True, check=False, cwd=LAYOUT.root,
    )
    assert json.loads(alone.stdout) == report
    ids = [e.id for e in MANIFEST.step(8).exercises]
    assert [e["id"] for e in report["exercises"]] == ids
    for exercise in report["exercises"]:
        assert exercise["status"] == "fail"
        assert exercise["failing"] and all("::" in t for t in exercise["failing"])
        assert exercise["message"]


def test_hint_climbs_past_the_readme_rung_one_rung_at_a_time_and_remembers(tmp_path: Path) -> None:
    copy = tmp_path / "p06"
    make_practice(LAYOUT, MANIFEST, 6, copy)
    ladder = next(e for e in MANIFEST.step(6).exercises if e.id == "06-turns").hints

    def hint(*extra: str, named: tuple[str, ...] = ("06", "06-turns")) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "pi_course.cli", "hint", *named, "--dir", str(copy),
             *extra], capture_output=True, text=True, check=True, cwd=LAYOUT.root,
            env={**os.environ, "COLUMNS": "400"},
        )
        return " ".join(result.stdout.split())

    assert "hint 2 of 3" in hint()  # rung 1 is in the README and the stub already
    assert ladder[0] in hint("--level", "1")
    third = hint(named=("06-turns",))  # the id alone names its step too
    assert hint() == third  # the top rung stays the top rung
    assert "hint 3 of 3" in third and " ".join(ladder[2].split()) in third
    assert hint("--level", "1") != third


def test_no_file_of_a_copy_shows_a_rung_past_the_first(tmp_path: Path) -> None:
    copy = tmp_path / "p10"
    make_practice(LAYOUT, MANIFEST, 10, copy)
    readme = (copy / "README.md").read_text(encoding="utf-8")
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in copy.rglob("*")
             if p.is_file()]
    assert not list(copy.rglob("manifest.toml"))  # `hint` reads the course's own manifest
    for exercise in MANIFEST.step(10).exercises:
        assert exercise.hints[0] in readme
        for rung in exercise.hints[1:]:
            assert not any(rung in text for text in texts)


def test_a_practice_readme_names_files_that_exist_wherever_the_copy_lives(tmp_path: Path) -> None:
    copy = tmp_path / "anywhere" / "p09"
    make_practice(LAYOUT, MANIFEST, 9, copy)
    readme = (copy / "README.md").read_text(encoding="utf-8")
    chapter = (copy / "CHAPTER.md").read_text(encoding="utf-8")
    assert "../../" not in readme + chapter
    assert "already solved" not in readme and "stubs for you to write" in readme
    assert "The solution of exercise" not in chapter and "your stub, to write" in chapter
    assert "NotImplementedError" in readme.split("## Run it", 1)[1].split("##", 1)[0]
    for name in re.findall(r"(?<![\w/])data/[\w./-]+\.jsonl", readme):
        assert (copy / name).is_file(), name
    root = LAYOUT.root.resolve().as_posix()
    assert f". {root}/.venv/bin/activate" in readme  # where `./pi-course` makes the venv
    for name in re.findall(r"(/[\w./-]+/docs/[\w./-]+\.md)", readme):
        assert Path(name).is_file(), name
    links = re.findall(r"\]\(([^)]+)\)", readme + chapter)
    assert [link for link in links if "checkpoints/" in link or link.startswith("../")] == []
    assert "`pi-course practice 10 my-10` makes the next step's copy" in readme
    assert f"({root}/docs/10_compaction.md)" in readme.split("## Next", 1)[1]


def test_progress_shows_every_learner_of_the_room(tmp_path: Path) -> None:
    make_practice(LAYOUT, MANIFEST, 8, tmp_path / "ada")
    make_practice(LAYOUT, MANIFEST, 8, tmp_path / "grace")
    shutil.rmtree(tmp_path / "grace" / "pi")
    shutil.copytree(LAYOUT.checkpoints / MANIFEST.step(8).folder / "pi", tmp_path / "grace" / "pi")
    page = tmp_path / "room.html"
    result = subprocess.run(
        [sys.executable, "-m", "pi_course.cli", "progress", str(tmp_path / "ada"),
         str(tmp_path / "grace"), "--html", str(page)],
        capture_output=True, text=True, check=True, cwd=LAYOUT.root,
        env={**os.environ, "COLUMNS": "300"},
    )
    total = len(MANIFEST.step(8).exercises)
    assert "ada" in result.stdout and f"0/{total}" in result.stdout
    assert "grace" in result.stdout and f"{total}/{total}" in result.stdout
    assert "ada" in page.read_text() and "grace" in page.read_text()


@pytest.mark.parametrize("step", [0, 6, 10, 13])
def test_a_copy_whose_diff_showed_the_solution_would_be_caught(step: int) -> None:
    solved = build(LAYOUT, MANIFEST, step)
    copy = build(LAYOUT, MANIFEST, step, practice=True)
    assert solution_leaks(solution_lines(solved, copy), copy) == []
    leaky = {**copy, "CHANGES.diff": solved["CHANGES.diff"]}
    assert solution_leaks(solution_lines(solved, leaky), leaky)
