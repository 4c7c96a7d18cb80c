"""Every deliberate divergence from Pi names a test that shows it, and that test exists.

`docs/divergences.md` is a table; its last column names tests as `tests/test_x.py::test_y`
(or `::test_z` for another test of the file named before it). A renamed or deleted test would
leave a row pointing at nothing, and the divergence would no longer be shown by anything.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "shared" / "chapters" / "divergences.md"
TESTS = ROOT / "shared" / "source" / "tests"
ROW = re.compile(r"^\| (\d+) \|")
NAMED = re.compile(r"`(tests/[\w/]+\.py)?::(\w+)`")


def rows() -> dict[str, str]:
    """Each row's number and its last column."""
    found = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if match := ROW.match(line):
            found[match[1]] = line.rstrip().rstrip("|").split("|")[-1]
    return found


def test_every_divergence_names_a_test_that_exists() -> None:
    assert len(rows()) >= 15, "the table was not found"
    for number, shown_by in rows().items():
        named = NAMED.findall(shown_by)
        assert named, f"row {number} names no test"
        file = ""
        for path, test in named:
            file = path or file
            source = (TESTS / Path(file).name).read_text(encoding="utf-8")
            defined = re.search(rf"^(async )?def {test}\(", source, re.M)
            assert defined, f"row {number}: {file}::{test}"
