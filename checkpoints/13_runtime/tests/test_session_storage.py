"""Where sessions live (Pi's layout, the course's own root) and injected ids/times."""

import random
from pathlib import Path

import pytest

from pi.coding_agent.session.entries import (
    SessionError,
    fixed_clock,
    fresh_id,
    iso_timestamp,
    ms_from_iso,
    random_ids,
    sequential_ids,
)
from pi.coding_agent.session.storage import (
    cwd_folder_name,
    session_path,
    sessions_root,
    start_session,
)

STEP = 9


@pytest.mark.parametrize(("cwd", "folder"), [
    ("/home/me/app", "--home-me-app--"),
    ("C:\\Users\\me\\app", "--C--Users-me-app--"),
    ("\\\\server\\share", "---server-share--"),
    ("relative/dir", "--relative-dir--"),
])
def test_a_folder_per_working_directory_like_pi(cwd: str, folder: str) -> None:
    assert cwd_folder_name(cwd) == folder


def test_a_file_per_session_named_by_time_and_id(tmp_path: Path) -> None:
    path = session_path(tmp_path, "/w", "2026-11-30T16:31:02.345Z", "bd11a9aa-66ba")
    assert path.name == "2026-11-30T16-31-02-345Z_bd11a9aa-66ba.jsonl"


def test_the_root_is_the_courses_own_never_pis(tmp_path: Path) -> None:
    assert sessions_root(tmp_path) == tmp_path / ".pi-course" / "agent" / "sessions"
    assert sessions_root(tmp_path, tmp_path / "elsewhere") == tmp_path / "elsewhere"
    with pytest.raises(SessionError, match="inside Pi's own folder"):
        sessions_root(tmp_path, tmp_path / ".pi" / "agent" / "sessions")


def test_starting_a_session_creates_its_folder_and_header(tmp_path: Path) -> None:
    writer = start_session(tmp_path, "/home/me/app", "s1", ids=sequential_ids(),
                           clock=fixed_clock(0), parent_session="/old.jsonl")
    writer.close()
    path = tmp_path / "--home-me-app--" / "1970-01-01T00-00-00-000Z_s1.jsonl"
    assert path.read_text() == ('{"type":"session","version":3,"id":"s1","timestamp":'
                                '"1970-01-01T00:00:00.000Z","cwd":"/home/me/app",'
                                '"parentSession":"/old.jsonl"}\n')


def test_a_repeated_session_name_takes_the_next_free_suffix_and_keeps_the_old_file(
        tmp_path: Path) -> None:
    def start() -> Path:
        writer = start_session(tmp_path, "/w", "s1", ids=sequential_ids(), clock=fixed_clock(0))
        writer.close()
        return writer.path

    first = start()
    before = first.read_bytes()
    names = [first.name, start().name, start().name]
    assert names == ["1970-01-01T00-00-00-000Z_s1.jsonl", "1970-01-01T00-00-00-000Z_s1-2.jsonl",
                     "1970-01-01T00-00-00-000Z_s1-3.jsonl"]
    assert first.read_bytes() == before


def test_timestamps_are_written_like_javascript() -> None:
    assert iso_timestamp(1_796_056_262_345) == "2026-11-30T16:31:02.345Z"
    assert ms_from_iso("2026-11-30T16:31:02.345Z") == 1_796_056_262_345
    assert ms_from_iso("2026-11-30T16:31:02.345") == 1_796_056_262_345
    clock = fixed_clock(10, step_ms=5)
    assert [clock(), clock(), clock()] == [10, 15, 20]


def test_ids_are_fresh_and_a_repeating_source_is_refused() -> None:
    ids = sequential_ids()
    assert [ids(), ids()] == ["00000001", "00000002"]
    assert fresh_id(sequential_ids(), {"00000001", "00000002"}) == "00000003"
    drawn = random_ids(random.Random(7))()
    assert drawn == random_ids(random.Random(7))(), "the same seed draws the same id"
    assert len(drawn) == 8 and all(c in "0123456789abcdef" for c in drawn)
    with pytest.raises(SessionError, match="100 ids that are all taken"):
        fresh_id(lambda: "same", {"same"})


def test_a_fresh_id_is_taken_from_the_first_hundred_tries() -> None:
    taken = {f"{n:08x}" for n in range(1, 100)}  # the first 99 ids the source gives
    assert fresh_id(sequential_ids(), taken) == "00000064", "the hundredth try still counts"
    with pytest.raises(SessionError, match="100 ids that are all taken"):
        fresh_id(sequential_ids(), taken | {"00000064"})
