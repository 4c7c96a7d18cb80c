"""The mutant catalog of `pi-course eval --mutants`: big enough, well formed, and it fits the code.

Running the mutants is CI's job (`.ci/run`, a few minutes); here only what is cheap: every
mutant's search text occurs exactly once in the latest checkpoint, the mutated files still
compile, the five planted bugs of issue 15 are there, and every layer a mutant names has
cases in both suites.
"""

from __future__ import annotations

import py_compile
from pathlib import Path

import pytest

from pi_course.eval_mutants import apply_mutant, case_layers, load_catalog, mutated_copy
from pi_course.paths import CourseError, Layout

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "evals" / "mutants" / "catalog.yaml"
LATEST = sorted((ROOT / "checkpoints").glob("[0-9][0-9]_*"))[-1]


def test_the_catalog_holds_at_least_25_mutants_and_the_five_planted_bugs() -> None:
    mutants = load_catalog(CATALOG)
    assert len(mutants) >= 25
    assert len([m for m in mutants if m.planted]) == 6  # the cut-point bug comes in two forms


@pytest.mark.parametrize("mutant", load_catalog(CATALOG), ids=lambda m: m.id)
def test_every_mutant_applies_once_to_the_latest_checkpoint_and_compiles(
    mutant: object, tmp_path: Path
) -> None:
    copy = mutated_copy(Layout(ROOT), LATEST, mutant, tmp_path)  # type: ignore[arg-type]
    for edit in mutant.edits:  # type: ignore[attr-defined]
        py_compile.compile(str(copy / edit.file), doraise=True)
        assert (copy / edit.file).read_text() != (LATEST / edit.file).read_text()
    assert not (LATEST / "data").exists(), "the checkpoint itself is never touched"


def test_every_layer_has_public_and_held_out_cases_and_mutants_name_only_those() -> None:
    public = {layer for layer, _ in case_layers(ROOT / "evals" / "cases").values()}
    held_out = {layer for layer, _ in case_layers(ROOT / "evals" / "held_out").values()}
    named = {layer for m in load_catalog(CATALOG) for layer in m.layers}
    assert named <= public and named <= held_out
    every = {"loop", "concurrency", "tools", "steering", "abort", "session", "compaction",
             "resources", "extensions", "retry", "overflow", "rpc"}
    assert public == held_out == every, "each layer from step 06 on has cases in both suites"


def test_a_search_text_that_no_longer_fits_is_an_error_naming_the_mutant(tmp_path: Path) -> None:
    mutant = load_catalog(CATALOG)[0].model_copy(update={"edits": (
        load_catalog(CATALOG)[0].edits[0].model_copy(update={"find": "no such text"}),)})
    (tmp_path / "pi" / "agent").mkdir(parents=True)
    (tmp_path / "pi" / "agent" / "tool_batch.py").write_text("x = 1\n")
    with pytest.raises(CourseError, match=r"mutant 01-second-result-dropped: .* occurs 0 times"):
        apply_mutant(mutant, tmp_path)


def test_every_case_states_the_layer_it_guards() -> None:
    for suite in ("cases", "held_out"):
        for case, (layer, _) in case_layers(ROOT / "evals" / suite).items():
            assert layer != "None", f"{suite}/{case} has no layer"


def test_a_planted_bug_must_be_caught_by_both_suites_and_an_equivalent_needs_a_reason() -> None:
    from pi_course.eval_mutants import Verdict

    planted = next(m for m in load_catalog(CATALOG) if m.planted)
    other = next(m for m in load_catalog(CATALOG) if not m.planted)
    assert not Verdict(planted, {"cases": ("a (task: roles)",), "held_out": ()}).ok
    assert Verdict(planted, {"cases": ("a",), "held_out": ("b",)}).ok
    assert Verdict(other, {"cases": (), "held_out": ("b",)}).ok
    assert not Verdict(other, {"cases": (), "held_out": ()}).ok
    equivalent = other.model_copy(update={"equivalent": "no case can observe it"})
    assert Verdict(equivalent, {"cases": (), "held_out": ()}).ok


def test_pi_course_eval_mutants_kills_a_chosen_mutant(tmp_path: Path) -> None:
    import subprocess
    import sys

    command = [str(Path(sys.executable).parent / "pi-course"), "eval", "--mutants",
               "--mutant", "12-turn-limit-late"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 of 1 mutants killed" in done.stdout and "turn-limit-declared" in done.stdout
