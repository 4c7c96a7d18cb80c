"""The runner counts what pytest did in child processes, in the order the suites were given."""

from __future__ import annotations

from pathlib import Path

from pi_course.runner import Suite, SuiteResult, run_suites, totals


def make_suite(root: Path, name: str, body: str) -> Suite:
    """A folder holding one test module and its own pytest.ini, like a checkpoint."""
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "tests" / "test_it.py").write_text(body, encoding="utf-8")
    return Suite(name, folder)


PASSING = "def test_one():\n    pass\n\n\ndef test_two():\n    assert 1 + 1 == 2\n"
FAILING = "class TestMaths:\n    def test_wrong(self):\n        assert 1 + 1 == 3\n"
SKIPPING = "import pytest\n\n\n@pytest.mark.skip\ndef test_later():\n    pass\n"


def test_counts_failures_and_keeps_the_given_order(tmp_path: Path) -> None:
    # The failing suite is listed first but the passing one is quicker to start: order is kept.
    suites = [make_suite(tmp_path, "bad", FAILING), make_suite(tmp_path, "good", PASSING)]
    seen: list[str] = []
    results = run_suites(suites, jobs=2, on_done=lambda r: seen.append(r.suite.name))
    bad, good = results
    assert [r.suite.name for r in results] == ["bad", "good"]
    assert sorted(seen) == ["bad", "good"]
    assert (good.passed, good.failed, good.skipped, good.failing) == (2, 0, 0, [])
    assert good.ok and good.reason == ""
    assert (bad.passed, bad.failed) == (0, 1)
    assert bad.failing == ["tests/test_it.py::TestMaths::test_wrong"]
    assert not bad.ok
    assert totals(results) == (2, 1, 0)


def test_skips_are_counted_apart(tmp_path: Path) -> None:
    (result,) = run_suites([make_suite(tmp_path, "later", SKIPPING)], jobs=1)
    assert (result.passed, result.failed, result.skipped) == (0, 0, 1)
    assert result.ok


def test_each_skip_keeps_its_reason(tmp_path: Path) -> None:
    body = ("import pytest\n\n\ndef test_needs_tmux():\n"
            "    pytest.skip('tmux is not installed')\n")
    (result,) = run_suites([make_suite(tmp_path, "tmux", body)], jobs=1)
    assert result.skips == ["tests/test_it.py::test_needs_tmux: tmux is not installed"]


def test_a_log_gets_one_unwrapped_line_per_finished_suite(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    log = StringIO()
    suites = [make_suite(tmp_path, "good", PASSING), make_suite(tmp_path, "later", SKIPPING)]
    run_suites(suites, jobs=1, console=Console(file=log, force_terminal=False, width=30))
    lines = sorted(log.getvalue().splitlines())
    assert len(lines) == 2
    assert lines[0].startswith("[") and "good: 2 passed, 0 failed, 0 skipped in " in lines[0]
    assert "later: 0 passed, 0 failed, 1 skipped in " in lines[1]


def test_a_syntax_error_fails_with_a_reason(tmp_path: Path) -> None:
    (result,) = run_suites([make_suite(tmp_path, "broken", "def test_(:\n")], jobs=1)
    assert result.failed == 1
    assert not result.ok
    assert "SyntaxError" in result.reason


def test_a_suite_without_tests_counts_as_one_failure(tmp_path: Path) -> None:
    (result,) = run_suites([make_suite(tmp_path, "empty", "VALUE = 1\n")])
    assert (result.passed, result.failed) == (0, 1)
    assert "no tests ran" in result.reason


def test_extra_arguments_reach_pytest(tmp_path: Path) -> None:
    base = make_suite(tmp_path, "both", PASSING)
    (result,) = run_suites([Suite("one", base.cwd, ("-k", "test_two"))])
    assert (result.passed, result.failed) == (1, 0)


def test_nothing_to_run_returns_nothing() -> None:
    assert run_suites([]) == []
    assert totals([SuiteResult(Suite("x", Path()), 1, 2, 3)]) == (1, 2, 3)
