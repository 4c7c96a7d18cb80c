"""Markers: one source file becomes the right file at every step, or fails naming the line."""

import pytest

from pi_course.markers import MarkerError, exercises_in, render

SOURCE = """\
def greet():
    # [from 02]
    print("from two on")
    # [end]
    # [only 01-02]
    #| print("one and two only")
    # [end]
    return 1


def solve():
    \"\"\"Docstring stays.\"\"\"
    # [exercise 03-solve]
    value = 40
    return value + 2
    # [end]
"""


def test_a_from_region_appears_at_its_step_and_after() -> None:
    assert "from two on" not in render(SOURCE, 1, "f.py")
    assert "from two on" in render(SOURCE, 2, "f.py")
    assert "from two on" in render(SOURCE, 14, "f.py")


def test_an_only_region_is_uncommented_inside_its_range_and_absent_outside() -> None:
    assert '    print("one and two only")\n' in render(SOURCE, 1, "f.py")
    assert '    print("one and two only")\n' in render(SOURCE, 2, "f.py")
    assert "one and two only" not in render(SOURCE, 3, "f.py")


def test_rendered_files_carry_no_markers() -> None:
    for step in range(15):
        assert "# [" not in render(SOURCE, step, "f.py")


def test_an_exercise_is_real_code_in_the_checkpoint() -> None:
    assert "return value + 2" in render(SOURCE, 3, "f.py")


def test_a_practice_copy_replaces_the_exercise_with_a_stub_naming_it_and_its_hint() -> None:
    text = render(SOURCE, 3, "f.py", {"03-solve": "add two to forty"})
    assert "return value + 2" not in text
    assert "    raise NotImplementedError('exercise 03-solve: add two to forty')\n" in text
    assert '"""Docstring stays."""' in text
    namespace: dict = {}
    exec(compile(text, "f.py", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="03-solve"):
        namespace["solve"]()


NESTED = """\
def turns():
    # [exercise 03-turns]
    for turn in range(3):
        # [from 02]
        print(turn)
        # [end]
        # [only 03-04]
        #| break
        # [end]
    # [end]
"""


def test_an_exercise_holding_other_regions_becomes_one_stub_and_one_answer() -> None:
    stub = "    raise NotImplementedError('exercise 03-turns: loop')\n"
    assert render(NESTED, 3, "f.py", {"03-turns": "loop"}).count(stub) == 1
    assert render(NESTED, 3, "f.py", answers={"03-turns": "pass"}).count("pass") == 1


def test_a_later_steps_practice_copy_keeps_earlier_exercises_solved() -> None:
    assert "return value + 2" in render(SOURCE, 4, "f.py", {"04-other": "hint"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# [from 02]\nx = 1\n", "f.py:1: region opened here is never closed"),
        ("x = 1\n# [end]\n", "f.py:2: `# [end]` without an open region"),
        ("# [since 02]\n# [end]\n", "f.py:1: unknown marker `# [since 02]`"),
        ("# [only 03-01]\n# [end]\n", "f.py:1: `only 03-01` ends before it starts"),
        ("# [only 01-02]\nx = 1\n# [end]\n", "f.py:2: lines of an `only` region must start"),
        ("# [exercise 01-a]\n# [exercise 01-b]\n# [end]\n# [end]\n",
         "f.py:2: exercises cannot be nested"),
    ],
)
def test_a_broken_marker_fails_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(MarkerError) as failure:
        render(text, 1, "f.py")
    assert str(failure.value).startswith(message)


def test_exercises_are_listed_in_order() -> None:
    assert exercises_in(SOURCE, "f.py") == ["03-solve"]
