"""What is read from outside is bounded: its nesting, its size once aliases are expanded,
and what kind of thing a path holds. Each refusal is one line saying which bound."""

import json
import os
from pathlib import Path

import pytest
import yaml

from pi.ai.bounded import (
    MAX_DEPTH,
    MAX_VALUES,
    NotAFile,
    TooLarge,
    read_file,
    read_json,
    what_is_at,
    within_bounds,
)

STEP = 4


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [10, MAX_DEPTH])
def test_json_within_the_depth_bound_reads_as_json_does(depth: int) -> None:
    assert read_json(nested(depth)) == json.loads(nested(depth))


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 10_000, 100_000])
def test_json_deeper_than_the_bound_is_refused_in_one_line(depth: int) -> None:
    with pytest.raises(TooLarge, match=f"^nested deeper than {MAX_DEPTH} levels$"):
        read_json(nested(depth))
    unclosed = TooLarge if depth >= 10_000 else ValueError  # short ones: not valid JSON
    with pytest.raises(unclosed):  # the parser's own stack runs out first: still one line
        read_json("[" * depth)


def test_json_holding_more_values_than_the_bound_is_refused_in_one_line() -> None:
    with pytest.raises(TooLarge, match=f"^more than {MAX_VALUES:,} values"):
        read_json("[" + "0," * MAX_VALUES + "0]")


def billion_laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_yaml_whose_aliases_expand_past_the_bound_is_refused_after_a_bounded_walk() -> None:
    bomb = yaml.safe_load(billion_laughs(10))  # 9**10 values once expanded, a few lists here
    with pytest.raises(TooLarge, match="aliases counted as often as used"):
        within_bounds(bomb)


def test_yaml_with_a_few_aliases_still_loads() -> None:
    data = yaml.safe_load("base: &b {model: mock}\nfirst: *b\nsecond: *b\n")
    assert within_bounds(data) == {"base": {"model": "mock"}, "first": {"model": "mock"},
                                   "second": {"model": "mock"}}
    assert MAX_VALUES >= 1_000


@pytest.mark.parametrize("kind, make", [
    ("a folder", lambda p: p.mkdir()),
    ("a FIFO", lambda p: os.mkfifo(p)),
    ("a link loop", lambda p: p.symlink_to(p)),
])
def test_a_path_that_holds_no_file_is_named_as_what_it_holds(tmp_path: Path, kind, make) -> None:
    path = tmp_path / "AGENTS.md"
    make(path)
    assert what_is_at(path) == kind
    with pytest.raises(NotAFile, match=f"^{path}: is {kind}, not a file$"):
        read_file(path)


def test_a_device_is_refused_without_being_read() -> None:
    with pytest.raises(NotAFile, match="is a device, not a file"):
        read_file(Path("/dev/zero"))  # never ends if read


def test_an_empty_file_reads_as_empty_text_and_a_missing_one_as_nothing(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_text("")
    assert read_file(tmp_path / "empty.json") == ""
    assert what_is_at(tmp_path / "missing") == "nothing"
    with pytest.raises(FileNotFoundError):
        read_file(tmp_path / "missing")


def test_an_integer_of_more_digits_than_python_converts_is_too_large_not_a_value_error() -> None:
    with pytest.raises(TooLarge, match=r"^a number of more than 4300 digits$"):
        read_json('{"n": ' + "9" * 5_000 + "}")
    assert read_json("[" + "9" * 4_300 + "]") == [int("9" * 4_300)]
