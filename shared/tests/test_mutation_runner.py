"""The mutation runner (shared/mutation/mutate.py): its operators, its names, its verdicts."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "shared" / "mutation"))

import mutate  # noqa: E402

SOURCE = textwrap.dedent('''
    """A module docstring is never mutated."""
    from typing import Callable

    Handler = Callable[[int], None]
    LIMIT = 3


    def clamp(value: int, low: int = 0) -> int:
        """Nor is a function's."""
        if value < low:
            return low
        return min(value, LIMIT - 1, LIMIT - 1)


    def twice(tick: Callable[[], None]) -> None:
        tick()
        tick()
''')


def described(source: str) -> list[str]:
    return [f"{m.function}: {m.original} -> {m.replacement} [{m.operator}] #{m.occurrence}"
            for m in mutate.enumerate_mutants("calc", source)]


def test_each_operator_yields_its_mutant_but_docstrings_imports_and_aliases_stay() -> None:
    names = described(SOURCE)
    assert "clamp: value < low -> value <= low [compare] #1" in names
    assert "clamp: return low -> return None [return] #1" in names
    assert "<module>: LIMIT = 3 -> LIMIT = None [assign] #1" in names
    assert not any("docstring" in n or "Nor is" in n or "Handler" in n or "typing" in n
                   for n in names)
    assert not any("int" in n.split(":")[1] for n in names), "annotations are not mutated"


def test_identical_mutants_are_told_apart_by_their_expression_or_their_occurrence() -> None:
    names = described(SOURCE)
    assert "clamp: min(value, LIMIT - 1, LIMIT - 1) -> min(value, LIMIT - 2, LIMIT - 1) " \
        "[number] #1" in names
    assert "clamp: min(value, LIMIT - 1, LIMIT - 1) -> min(value, LIMIT - 1, LIMIT - 2) " \
        "[number] #1" in names
    assert "twice: tick() -> pass [call] #1" in names
    assert "twice: tick() -> pass [call] #2" in names, "the same statement twice"


def test_the_numbered_mutant_is_the_one_compiled() -> None:
    mutants = mutate.enumerate_mutants("calc", SOURCE)
    flipped = next(m for m in mutants if m.original == "value < low" and m.operator == "compare")
    space: dict = {}
    exec(mutate.mutated_code(SOURCE, Path("calc.py"), flipped.number), space)
    assert space["clamp"](0) == 0 and space["clamp"](-1) == 0 and space["clamp"](5) == 2
    original: dict = {}
    exec(compile(ast.parse(SOURCE), "calc.py", "exec"), original)
    assert original["clamp"](5) == 2


def test_an_accepted_equivalent_matches_by_text_and_occurrence_only() -> None:
    mutants = mutate.enumerate_mutants("calc", SOURCE)
    entry = mutate.Equivalent("calc", "twice", "tick()", "pass", "why", occurrence=2)
    assert [m.occurrence for m in mutants if entry.matches(m)] == [2]


def test_the_modules_that_import_the_target_are_not_preloaded(tmp_path: Path) -> None:
    package = tmp_path / "pi"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "__init__.py").write_text("from pi.core.target import x\n")
    (package / "core" / "target.py").write_text("x = 1\n")
    (package / "base.py").write_text("y = 2\n")
    (package / "user.py").write_text("from pi.base import y\nfrom pi.core import x\n")
    assert mutate.independent_modules(tmp_path, "pi.core.target") == ["pi", "pi.base"]


def test_a_run_kills_what_the_tests_notice_and_fails_under_the_threshold(tmp_path) -> None:
    (tmp_path / "pi").mkdir()
    (tmp_path / "pi" / "__init__.py").write_text("")
    (tmp_path / "pi" / "calc.py").write_text(
        "def double(x):\n    return x * 2\n\n\ndef unused(x):\n    return x + 1\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "from pi.calc import double\n\n\ndef test_double():\n    assert double(3) == 6\n")
    (tmp_path / "conftest.py").write_text(
        "import sys\nsys.path.insert(0, __import__('os').path.dirname(__file__))\n")
    (tmp_path / "mutation.toml").write_text(
        '[modules.calc]\nmodule = "pi.calc"\ntests = ["tests/test_calc.py"]\n')
    run = subprocess.run(
        [sys.executable, str(ROOT / "shared" / "mutation" / "mutate.py"), "--checkpoint",
         str(tmp_path), "--config", str(tmp_path / "mutation.toml"), "--equivalent",
         str(tmp_path / "none.toml"), "--jobs", "1"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "mutation: 3 of 6 killed (50.0%), 0 equivalent" in run.stdout
    assert "unused: return x + 1 -> return None [return] (no selected test runs this line)" \
        in run.stdout
