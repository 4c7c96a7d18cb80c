"""Chapters fold the code that solves their own step's exercises, in both languages, so a
reader tries the exercise first; code from other steps stays open."""

from __future__ import annotations

from pathlib import Path

from pi_course.docs import exercises_solved_by, folded
from pi_course.paths import find_layout

ROOT = find_layout(Path(__file__)).root
TREE = ROOT / "shared" / "source" / "pi" / "coding_agent" / "session" / "tree.py"


def test_a_symbol_holding_this_steps_exercise_is_found_and_others_are_not() -> None:
    assert exercises_solved_by(TREE, "SessionTree.path_to", "09") == ["09-path-to"]
    assert exercises_solved_by(TREE, "SessionTree.path_to", "10") == []
    assert exercises_solved_by(TREE, "SessionTree.children", "09") == []


def test_folded_code_says_which_exercise_it_solves_in_the_pages_language() -> None:
    code = "```python\npass\n```"
    english = folded(code, ["09-path-to"], "shared/chapters/09_session.md:12")
    chinese = folded(code, ["09-path-to"], "shared/chapters/zh/09_session.md:12")
    assert english.startswith("<details><summary>The solution of exercise 09-path-to")
    assert chinese.startswith("<details><summary>练习 09-path-to 的答案")
    assert english.endswith(f"{code}\n\n</details>") and chinese.endswith("</details>")


def test_every_published_chapter_folds_its_own_solutions() -> None:
    for number in ("00", "06", "09", "13", "14"):
        page = next((ROOT / "docs").glob(f"{number}_*.md")).read_text(encoding="utf-8")
        assert f"<details><summary>The solution of exercise {number}-" in page, number
