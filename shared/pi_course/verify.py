"""`pi-course verify`: every promise the course makes about itself, checked.

Markers balance, the committed checkpoints are exactly what the source generates, the manifest
agrees with the source, public names only grow, every test says where it starts, layers never
import upward, chapters' anchors resolve, `docs/` is what the chapter sources publish, every
demo still prints its checked output, and every Chinese translation is of the current English.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from pi_course.docs import SOURCES, broken_links, render_chapter
from pi_course.exercises import solution_leaks, solution_lines
from pi_course.generate import (
    CHAPTER,
    DEMO_OUTPUT,
    INDEX,
    expected_docs,
    expected_files,
    folder_files,
    run_demo,
)
from pi_course.hygiene import check_budgets, check_links
from pi_course.layers import check_layers
from pi_course.lessons import check_lessons
from pi_course.manifest import LAST_STEP, Manifest, Step, load_manifest
from pi_course.markers import MARKER, exercises_in, render
from pi_course.paths import CODE, PACKAGES, CourseError, Layout, find_layout
from pi_course.render import build, learner_files, line_changes, source_tests, step_range
from pi_course.translations import check_translations


@dataclass
class VerifyReport:
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def verify(layout: Layout | None = None) -> VerifyReport:
    layout = layout or find_layout()
    report = VerifyReport()
    try:
        manifest = load_manifest(layout.manifest)
        for check in (check_sources, check_tests, check_checkpoints, check_docs,
                      check_public_names, check_exercises, check_layers, check_lessons,
                      check_budgets, check_links, check_chinese_edition):
            check(layout, manifest, report)
    except CourseError as error:
        report.problems.append(str(error))
    return report


def check_sources(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """Every source file belongs to one step, and its markers render at every step."""
    declared = [f for step in manifest.steps for f in step.files]
    for rel in sorted({f for f in declared if declared.count(f) > 1}):
        report.problems.append(f"manifest: {rel} is introduced by more than one step")
    on_disk = {p.relative_to(layout.source).as_posix()
               for package in PACKAGES for p in (layout.source / package).rglob("*.py")}
    for rel in sorted(on_disk - set(declared)):
        report.problems.append(f"shared/source/{rel}: not introduced by any step in the manifest")
    for step in manifest.steps:
        for rel in step.files:
            path = layout.source / rel
            if path.is_file():
                for at in range(step.id, LAST_STEP + 1):
                    render(path.read_text(encoding="utf-8"), at, f"shared/source/{rel}")


def check_tests(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """Tests declare their first step, carry no markers, and match the manifest."""
    starts: dict[int, set[str]] = {}
    for rel, text in source_tests(layout).items():
        first, last = step_range(text, f"shared/source/{rel}")
        starts.setdefault(first, set()).add(rel)
        if any(MARKER.match(line) for line in text.splitlines()):
            report.problems.append(f"shared/source/{rel}: tests carry no step markers")
        retired = {r.test for s in manifest.steps if s.id == last + 1 for r in s.retired}
        if last < LAST_STEP and rel not in retired:
            report.problems.append(f"{rel}: stops at step {last} but no step {last + 1} retires it")
    for step in manifest.steps:
        found = starts.get(step.id, set())
        if found != set(step.tests):
            report.problems.append(
                f"manifest step {step.id:02d}: tests {sorted(step.tests)} but the source has "
                f"{sorted(found)} starting there"
            )


def check_checkpoints(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """The committed folders hold exactly what the source generates, demo output included."""
    for step in manifest.steps:
        folder = layout.checkpoints / step.folder
        where = f"checkpoints/{step.folder}"
        if not folder.is_dir():
            report.problems.append(f"{where}: missing (run `pi-course generate`)")
            continue
        expected = expected_files(layout, manifest, step.id)
        on_disk = folder_files(folder) - {DEMO_OUTPUT}
        for rel in sorted(set(expected) - on_disk):
            report.problems.append(f"{where}/{rel}: missing (run `pi-course generate`)")
        for rel in sorted(on_disk - set(expected)):
            report.problems.append(f"{where}/{rel}: not generated from the source (remove it)")
        for rel in sorted(set(expected) & on_disk):
            line = first_difference(expected[rel], (folder / rel).read_text(encoding="utf-8"))
            if line:
                report.problems.append(
                    f"{where}/{rel}: line {line} differs from what the source generates "
                    "(edit shared/, then run `pi-course generate`)"
                )
        if not report.problems and run_demo(folder) != read(folder / DEMO_OUTPUT):
            report.problems.append(f"{where}/{DEMO_OUTPUT}: the demo now prints something else")
        for shown in stale_excerpt(expected.get("README.md", ""), read(folder / DEMO_OUTPUT)):
            report.problems.append(f"{where}/README.md: shows {shown.strip()!r}, which the demo "
                                   f"no longer prints (copy it from {DEMO_OUTPUT})")
        if f"Step {step.id:02d} of {LAST_STEP}" not in expected.get("README.md", ""):
            report.problems.append(f"{where}/README.md: must say 'Step {step.id:02d} of 14'")


def check_docs(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """`docs/` holds exactly what `shared/chapters/` publishes: code inlined, links that work."""
    expected = expected_docs(layout, manifest)
    on_disk = folder_files(layout.docs) if layout.docs.is_dir() else set()
    for name in sorted(set(expected) - on_disk):
        report.problems.append(f"docs/{name}: missing (run `pi-course generate`)")
    for name in sorted(on_disk - set(expected)):
        report.problems.append(f"docs/{name}: not generated (write it as {SOURCES}/{name})")
    for name in sorted(set(expected) & on_disk):
        source = "the chapter list" if name == INDEX else f"{SOURCES}/{name}"
        line = first_difference(expected[name], (layout.docs / name).read_text(encoding="utf-8"))
        if line:
            report.problems.append(f"docs/{name}: line {line} differs from what {source} "
                                   "generates (edit the source, then run `pi-course generate`)")
    for name, text in sorted(expected.items()):
        for number, content in enumerate(text.splitlines(), 1):
            if "<!-- include" in content:
                report.problems.append(f"docs/{name}:{number}: an include that is not "
                                       "`<!-- include FILE[::SYMBOL] -->` stays unexpanded")
        for target in broken_links((layout.docs / name).parent, text):
            report.problems.append(f"docs/{name}: broken link {target}")


def check_chinese_edition(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """Every translation names the English file it translates, at that file's current hash."""
    check_translations(layout.root, manifest, report)


def stale_excerpt(readme: str, demo_output: str) -> list[str]:
    """The lines of a README's demo excerpt (its ```text blocks, when it says the output is in
    demo.out) that the demo does not print; a line of `...` marks lines left out."""
    if DEMO_OUTPUT not in readme:
        return []
    printed = {line.rstrip() for line in demo_output.splitlines()}
    excerpts = re.findall(r"```text\n(.*?)```", readme, re.DOTALL)
    return [line for block in excerpts for line in block.splitlines()
            if line.strip() not in ("", "...") and line.rstrip() not in printed]


def read(file: Path) -> str:
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def first_difference(expected: str, actual: str) -> int:
    """1-based number of the first line that differs, or 0 when the texts are equal."""
    if expected == actual:
        return 0
    pairs = zip(expected.splitlines(keepends=True), actual.splitlines(keepends=True), strict=False)
    for number, (want, have) in enumerate(pairs, start=1):
        if want != have:
            return number
    return min(len(expected.splitlines()), len(actual.splitlines())) + 1


def public_names(files: dict[str, str]) -> set[str]:
    """`package.name` for every name in a package facade's `__all__`."""
    names: set[str] = set()
    for rel, text in files.items():
        if rel.startswith(CODE) and rel.endswith("__init__.py"):
            package = rel.removesuffix("/__init__.py").replace("/", ".")
            names.update(f"{package}.{name}" for name in dunder_all(text))
    return names


def dunder_all(text: str) -> list[str]:
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return [str(name) for name in ast.literal_eval(node.value)]
    return []


def check_public_names(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    before: set[str] = set()
    for step in manifest.steps:
        now = public_names(learner_files(layout, manifest, step.id, False))
        for lost in sorted(before - now):
            report.problems.append(f"step {step.id:02d}: public name {lost} disappeared")
        if now - before != set(step.public):
            report.problems.append(
                f"manifest step {step.id:02d}: public names added are {sorted(now - before)}, "
                f"the manifest says {sorted(step.public)}"
            )
        before = now


def defined_tests(text: str) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def check_exercise_tests(step: Step, files: dict[str, str], report: VerifyReport) -> None:
    """Every test id an exercise names exists in that checkpoint."""
    for exercise in step.exercises:
        for test_id in exercise.tests:
            module, _, name = test_id.partition("::")
            if module not in files or name.split("[")[0] not in defined_tests(files[module]):
                report.problems.append(
                    f"manifest {exercise.id}: no test {test_id} at step {step.id:02d}")


def check_no_answer_in_practice(layout: Layout, manifest: Manifest, step: Step,
                                solved: dict[str, str], report: VerifyReport) -> None:
    """A practice copy's README, chapter and diff show the stubs, never a line of an answer."""
    copy = build(layout, manifest, step.id, practice=True)
    copy[CHAPTER] = render_chapter(layout, step, copy)
    answers = solution_lines(solved, copy)
    if step.exercises and not answers:
        report.problems.append(f"practice {step.id:02d}: the stubs hide no line of code")
    for leak in solution_leaks(answers, copy):
        report.problems.append(f"practice {step.id:02d}: {leak} shows a line of an answer")


def check_exercises(layout: Layout, manifest: Manifest, report: VerifyReport) -> None:
    """Each step has exercises with hints, found in the source, whose stubs still parse."""
    in_source = [
        exercise
        for rel in manifest.files_until(LAST_STEP)
        for exercise in exercises_in((layout.source / rel).read_text(encoding="utf-8"), rel)
    ]
    for step in manifest.steps:
        declared = {e.id for e in step.exercises}
        found = {e for e in in_source if e.startswith(f"{step.id:02d}-")}
        if not declared:
            report.problems.append(f"manifest step {step.id:02d}: no exercise")
        if declared != found:
            report.problems.append(
                f"step {step.id:02d}: exercises in the manifest {sorted(declared)} "
                f"but in the source {sorted(found)}"
            )
        for rel, text in learner_files(layout, manifest, step.id, True).items():
            if rel.endswith(".py"):
                try:
                    ast.parse(text)
                except SyntaxError as error:
                    report.problems.append(f"practice {step.id:02d} {rel}: {error}")
        before = learner_files(layout, manifest, step.id - 1, False) if step.id else {}
        after = learner_files(layout, manifest, step.id, False)
        check_exercise_tests(step, after, report)
        check_no_answer_in_practice(layout, manifest, step, after, report)
        for rel, _, _ in line_changes(before, after):
            if not rel.startswith("tests/") and rel not in step.why:
                report.problems.append(f"manifest step {step.id:02d}: no `why` for {rel}")
