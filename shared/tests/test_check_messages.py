"""What `pi-course check` and `watch` show for a failing test: its assertion message whole (JUnit's
`message` attribute stops after 500 characters, and check used to show only its first line),
with the difference pytest names, and no traceback."""

from __future__ import annotations

from pathlib import Path

from pi_course.manifest import Exercise
from pi_course.practice import judged, run_tests

# A value whose repr is long, differing from the expected one only at its very end.
FAILING_TEST = '''
def test_the_change_is_named():
    change = ["ArgumentChangedSomewhereDeep"] * 12 + ["the end: tool_call_id"]
    assert change == ["ArgumentChangedSomewhereDeep"] * 12 + ["the end: toolCallId"]


def test_the_stub_is_named():
    raise NotImplementedError("exercise 99-x: a hint")



def test_a_long_message():
    assert False, "\\n".join(f"step {n}" for n in range(500))
'''


def shown_for(folder: Path, test: str) -> str:
    """The message check shows for an exercise judged by `test` alone, in a folder whose
    pytest.ini asks for native tracebacks, as a practice copy's does."""
    (folder / "pytest.ini").write_text("[pytest]\naddopts = --tb=native\n", encoding="utf-8")
    (folder / "test_it.py").write_text(FAILING_TEST, encoding="utf-8")
    exercise = Exercise("99-x", "", ("a hint",), (f"test_it.py::{test}",), 5)
    return judged(exercise, run_tests(folder)).message


def test_a_failing_assertion_shows_the_difference_whole_without_a_traceback(
        tmp_path: Path) -> None:
    shown = shown_for(tmp_path, "test_the_change_is_named")
    assert shown.startswith("AssertionError: assert ['ArgumentCha"), shown
    assert "At index 12 diff: 'the end: tool_call_id' != 'the end: toolCallId'" in shown, shown
    assert "Traceback" not in shown and "test_it.py" not in shown and "-v" not in shown, shown


def test_a_long_message_is_cut_to_a_screenful_that_says_how_much_is_left(
        tmp_path: Path) -> None:
    shown = shown_for(tmp_path, "test_a_long_message").splitlines()
    assert len(shown) == 61 and shown[-1].startswith("… (") and shown[-1].endswith(
        " more lines)"), shown[-3:]
