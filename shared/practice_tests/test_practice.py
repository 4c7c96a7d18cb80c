"""Practice copies: never overwrite, refuse non-copies, carry what their tests need.

The per-step proof that each copy is a real exercise is in test_practice_early/late.py.
"""

from pathlib import Path

import pytest

from pi_course.manifest import load_manifest
from pi_course.paths import CourseError, Layout, find_layout
from pi_course.practice import check_practice, make_practice

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
