"""What `pi-course check` and `watch` show for a failing exercise: every failing test by name with
a one-line reason, the first one's assertion message whole (JUnit's `message` attribute stops
after 500 characters, and check used to show only its first line), with the difference pytest
names, no traceback, and no advice to update the course's snapshots."""

from __future__ import annotations

from pathlib import Path

from pi_course.manifest import Exercise
from pi_course.practice import ExerciseResult, judged, run_tests

# A value whose repr is long, differing from the expected one only at its very end.
FAILING_TEST = '''
def test_the_change_is_named():
    change = ["ArgumentChangedSomewhereDeep"] * 12 + ["the end: tool_call_id"]
    assert change == ["ArgumentChangedSomewhereDeep"] * 12 + ["the end: toolCallId"]


def test_the_stub_is_named():
    raise NotImplementedError("exercise 99-x: a hint")



def test_a_long_message():
    assert False, "\\n".join(f"step {n}" for n in range(500))


def test_the_output_matches_its_snapshot(snapshot):
    snapshot.snapshot_dir = "snapshots"
    snapshot.assert_match("the same start " * 9 + "and your output\\n", "out.txt")


def test_a_missing_snapshot(snapshot):
    snapshot.snapshot_dir = "snapshots"
    snapshot.assert_match("your output\\n", "missing.txt")
'''


def judged_by(folder: Path, *tests: str) -> ExerciseResult:
    """The verdict on an exercise judged by `tests`, in a folder whose pytest.ini asks for
    native tracebacks, as a practice copy's does."""
    (folder / "pytest.ini").write_text("[pytest]\naddopts = --tb=native\n", encoding="utf-8")
    (folder / "test_it.py").write_text(FAILING_TEST, encoding="utf-8")
    (folder / "snapshots").mkdir()
    expected = "the same start " * 9 + "and the expected output\n"
    (folder / "snapshots" / "out.txt").write_text(expected, encoding="utf-8")
    exercise = Exercise("99-x", "", ("a hint",), tuple(f"test_it.py::{t}" for t in tests), 5)
    return judged(exercise, run_tests(folder))


def shown_for(folder: Path, test: str) -> str:
    """The message check shows for an exercise judged by `test` alone."""
    return judged_by(folder, test).message


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


def test_every_failing_test_is_named_with_a_one_line_reason_and_the_first_shown_whole(
        tmp_path: Path) -> None:
    result = judged_by(tmp_path, "test_the_change_is_named", "test_the_stub_is_named",
                       "test_a_long_message")
    named = [f"test_it.py::{t}" for t in ("test_the_change_is_named", "test_the_stub_is_named",
                                          "test_a_long_message")]
    assert result.failing == named
    assert result.reasons == {
        named[0]: result.message.splitlines()[0],
        named[1]: "NotImplementedError: exercise 99-x: a hint",
        named[2]: "AssertionError: step 0"}
    report = result.report().splitlines()
    assert report[0] == named[0] and "At index 12 diff" in result.report()
    for test in named[1:]:
        at = report.index(test)
        assert report[at + 1] == "  " + result.reasons[test], report[at:]


def test_tests_failing_for_the_reason_just_shown_are_counted_not_listed() -> None:
    stub = "NotImplementedError: the stub of 99-x, not written yet"
    result = ExerciseResult("99-x", "", False, ["t::a", "t::b", "t::c", "t::d", "t::e"],
                            "NotImplementedError: exercise 99-x: a hint",
                            {"t::a": "NotImplementedError: exercise 99-x: a hint", "t::b": stub,
                             "t::c": stub, "t::d": stub, "t::e": "AssertionError: other"})
    assert result.report().splitlines() == [
        "t::a", "  NotImplementedError: exercise 99-x: a hint", "t::b", "  " + stub,
        "… (2 more tests, same reason)", "t::e", "  AssertionError: other"]


def test_a_failing_snapshot_says_the_expected_output_is_fixed_not_to_update_it(
        tmp_path: Path) -> None:
    result = judged_by(tmp_path, "test_the_output_matches_its_snapshot", "test_a_missing_snapshot")
    shown = result.report()
    assert "--snapshot-update" not in shown and "pytest" not in shown, shown
    assert shown.count("the expected output is fixed by the course") == 2, shown
    assert "Skipping 129 identical leading characters in diff\n" in shown, shown  # and no -v
    assert "- start and the expected output" in shown and "+ start and your output" in shown, shown
