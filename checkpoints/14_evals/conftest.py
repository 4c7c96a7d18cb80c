"""Test setup shared by the marked source and every checkpoint (copied unchanged).

Every checkpoint holds packages with the same names, `pi` and `course`, so one pytest process
can test only one of them: the first one imported would silently be tested twice. This file
makes its own folder the one under test and stops loudly when a second checkpoint joins the
same process.
Test data lives once, in the repository's `shared/data` (a practice copy carries its own
`data/`), and is found from here.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
GUARD = "_pi_course_checkpoint_under_test"


def claim_this_process() -> None:
    """Register this folder as the one under test, or stop if another already is."""
    other = sys.modules.get(GUARD)
    if other is not None and other.folder != HERE:
        pytest.exit(
            f"pi-course: {other.folder.name} and {HERE.name} cannot be tested in one pytest "
            "process (both define the packages `pi` and `course`). Run each on its own: "
            "`pi-course test` (all, one process each) or `cd <checkpoint> && pytest`.",
            returncode=4,
        )
    for package in ("pi", "course"):
        loaded = sys.modules.get(package)
        if loaded is not None and HERE not in Path(str(loaded.__file__)).resolve().parents:
            pytest.exit(f"pi-course: `{package}` was already imported from {loaded.__file__}",
                        returncode=4)
    guard = types.ModuleType(GUARD)
    guard.folder = HERE  # type: ignore[attr-defined]
    sys.modules[GUARD] = guard
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))


def find_data_dir() -> Path:
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "pi-reference").is_dir():
                return candidate
    raise RuntimeError(f"no test data found above {HERE}")


claim_this_process()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared test data: real Pi sessions, expected outputs, scripts, workspaces."""
    return find_data_dir()


@pytest.fixture
def text_snapshot(snapshot: Any, request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """Compare text with a stored snapshot (line endings normalised); shared by all steps."""
    module = Path(str(request.node.fspath)).stem
    snapshot.snapshot_dir = find_data_dir() / "snapshots" / module / request.node.name

    def check(text: str, name: str) -> None:
        snapshot.assert_match(text.replace("\r\n", "\n"), name)

    return check
