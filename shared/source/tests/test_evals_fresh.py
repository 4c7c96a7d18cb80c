"""Fresh fixtures (`--fresh SEED`).

A variant renames identifiers everywhere (files, contents, prompt, judges) and may move the
bug; the same seed must give byte-identical fixtures, another seed other ones.
"""

import shutil
from pathlib import Path

import pytest
from eval_fakes import write_case

from course.evals.cases import load_case
from course.evals.fresh import digest, fresh_case

STEP = 14

CASE = """\
id: fix-calc
first_checkpoint: 7
prompt: "test_calc.py fails. Please fix calc.py."
workspace: buggy-calc
model: openai/any
files: [calc.py]
judges:
  - file_contains: {path: calc.py, text: "return a + b"}
  - command: "python test_calc.py"
fresh:
  rename:
    calc: [arith, reckon, numerics]
    add: [plus, total, combine]
    multiply: [times, product, scale]
  bugs:
    - name: in-add
    - name: in-multiply
      edits:
        - {file: calc.py, find: "return a - b", replace: "return a + b"}
        - {file: calc.py, find: "return a * b", replace: "return a ** b"}
      judges:
        - file_contains: {path: calc.py, text: "return a * b"}
        - command: "python test_calc.py"
"""


@pytest.fixture
def suite(tmp_path: Path, data_dir: Path) -> Path:
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", tmp_path / "workspaces" / "buggy-calc")
    return write_case(tmp_path / "cases", "fix", CASE)


def variant(suite: Path, seed: int, where: Path) -> Path:
    case = fresh_case(load_case(suite), seed, where)
    assert case.workspace is not None and case.fixture == digest(case.workspace)
    return case.workspace


def test_the_same_seed_gives_identical_fixtures_and_other_seeds_other_ones(
    suite: Path, tmp_path: Path
) -> None:
    first, again = variant(suite, 7, tmp_path / "a"), variant(suite, 7, tmp_path / "b")
    assert digest(first) == digest(again)
    others = {digest(variant(suite, seed, tmp_path / f"s{seed}")) for seed in (8, 9, 10)}
    assert digest(first) not in others and len(others) > 1
    assert digest(first) != digest(suite.parent.parent / "workspaces" / "buggy-calc")


def test_a_variant_renames_files_code_prompt_and_judges_together(suite: Path,
                                                                  tmp_path: Path) -> None:
    case = fresh_case(load_case(suite), 7, tmp_path / "v")
    assert case.workspace is not None
    names = sorted(p.name for p in case.workspace.iterdir())
    module = case.spec.files[0].removesuffix(".py")
    assert module in ("arith", "reckon", "numerics") and f"{module}.py" in names
    assert f"test_{module}.py" in names and f"test_{module}.py" in case.spec.prompt
    assert "calc" not in " ".join(names) + case.spec.prompt
    code = (case.workspace / f"{module}.py").read_text(encoding="utf-8")
    assert "def add(" not in code and "def multiply(" not in code
    assert all(judge.get("file_contains", {"path": case.spec.files[0]})["path"] ==
               case.spec.files[0] for judge in case.spec.judges)


def test_some_seed_moves_the_bug_and_its_judges_follow(suite: Path, tmp_path: Path) -> None:
    moved = []
    for seed in range(12):
        case = fresh_case(load_case(suite), seed, tmp_path / f"m{seed}")
        assert case.workspace is not None
        if "**" in (case.workspace / case.spec.files[0]).read_text(encoding="utf-8"):
            moved.append(case)
    assert moved, "no seed of 0-11 put the bug in multiply()"
    assert all("return a * b" in str(case.spec.judges[0]) for case in moved)


def report(*cells: tuple[str, str, str]) -> dict[str, object]:
    return {"version": 1, "suite": "cases", "mode": "mock", "repeats": 1, "fresh": None,
            "checkpoints": {c[1]: f"{c[1]}_x" for c in cells},
            "results": [{"case": c, "checkpoint": k, "outcome": o} for c, k, o in cells]}
