"""Build one checkpoint in memory: every file it holds, as text.

Rendering never touches the checkpoints folder, so `verify` can compare what the source says a
checkpoint should be with what is committed, and `practice` can write a variant of it elsewhere.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path

from pi_course.docs import PUBLISHED, TRANSLATED
from pi_course.exercises import EXERCISES_PLACEHOLDER, exercises_section
from pi_course.manifest import LAST_STEP, Manifest, Step
from pi_course.markers import render
from pi_course.paths import CODE, CourseError, Layout

STEP_LINE = re.compile(r"^STEP = (\d+)[ \t]*$", re.MULTILINE)
UNTIL_LINE = re.compile(r"^UNTIL = (\d+)[ \t]*$", re.MULTILINE)
CHANGES_PLACEHOLDER = "{{ changes }}"
DIFFED = (*CODE, "tests/", "demo.py")


def step_range(text: str, where: str) -> tuple[int, int]:
    """The first and last step a test module runs at (`STEP = N`, optional `UNTIL = M`)."""
    start = STEP_LINE.search(text)
    if start is None:
        raise CourseError(f"{where}: a test module must declare its first step as `STEP = N`")
    until = UNTIL_LINE.search(text)
    return int(start[1]), int(until[1]) if until else LAST_STEP


def source_tests(layout: Layout) -> dict[str, str]:
    """Every test module of the marked source, by path relative to the source root."""
    folder = layout.source / "tests"
    return {
        f"tests/{path.relative_to(folder).as_posix()}": path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("test_*.py"))
    }


def code_files(
    layout: Layout, manifest: Manifest, step: int, practice: bool = False,
    answers: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The step's code: every file introduced so far, with markers resolved.

    `practice` stubs every exercise of the step; `answers` (exercise id -> code) puts a given
    answer in an exercise's place instead.
    """
    hints = manifest.hints(step) if practice else None
    files: dict[str, str] = {}
    for rel in manifest.files_until(step):
        path = layout.source / rel
        if not path.is_file():
            raise CourseError(f"manifest names {rel}, but shared/source/{rel} does not exist")
        files[rel] = render(path.read_text(encoding="utf-8"), step, f"shared/source/{rel}", hints,
                            answers)
    return files


def test_files(layout: Layout, step: int) -> dict[str, str]:
    """The test modules whose range includes `step`, copied unchanged."""
    chosen: dict[str, str] = {}
    for rel, text in source_tests(layout).items():
        first, last = step_range(text, f"shared/source/{rel}")
        if first <= step <= last:
            chosen[rel] = text
    return chosen


def reading_order(step: Step | None, paths: set[str]) -> list[str]:
    """Lesson files first (in the manifest's order), then provided code, then the rest."""
    lesson = list(step.lesson) if step else []
    provided = list(step.provided) if step else []

    def rank(rel: str) -> tuple[int, int, str]:
        if rel in lesson:
            return (0, lesson.index(rel), rel)
        if rel in provided:
            return (1, provided.index(rel), rel)
        return (2, 0, rel)

    return sorted(paths, key=rank)


def changes_diff(before: dict[str, str], after: dict[str, str], step: Step | None = None) -> str:
    """A unified diff of the learner-facing files between two checkpoints, lesson first."""
    chunks: list[str] = []
    for rel in reading_order(step, set(before) | set(after)):
        if not rel.startswith(DIFFED) or before.get(rel) == after.get(rel):
            continue
        chunks.extend(
            difflib.unified_diff(
                before.get(rel, "").splitlines(keepends=True),
                after.get(rel, "").splitlines(keepends=True),
                fromfile=f"a/{rel}" if rel in before else "/dev/null",
                tofile=f"b/{rel}" if rel in after else "/dev/null",
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def line_changes(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, int, int]]:
    """(file, lines added, lines removed) for every learner-facing file that changed."""
    rows: list[tuple[str, int, int]] = []
    for rel in sorted(set(before) | set(after)):
        if not rel.startswith(DIFFED) or before.get(rel) == after.get(rel):
            continue
        diff = list(
            difflib.unified_diff(
                before.get(rel, "").splitlines(), after.get(rel, "").splitlines(), lineterm=""
            )
        )
        added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
        removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
        rows.append((rel, added, removed))
    return rows


def changes_table(step: Step, rows: list[tuple[str, int, int]], practice: bool = False,
                  stubbed: tuple[str, ...] = ()) -> str:
    """The README's account of the step: lesson to read, provided code to skim, the rest
    (in a practice copy, `stubbed` names the files that hold the exercises' stubs)."""
    groups = (
        ("Lesson: read these in full", [r for r in rows if r[0] in step.lesson]),
        ("Provided: use these, skim if you like", [r for r in rows if r[0] in step.provided]),
        ("Tests, demo and anything else",
         [r for r in rows if r[0] not in step.lesson and r[0] not in step.provided]),
    )
    order = {rel: i for i, rel in enumerate(reading_order(step, {r[0] for r in rows}))}
    parts: list[str] = []
    for title, group in groups:
        if not group:
            continue
        total = sum(added + removed for _, added, removed in group)
        lines = [f"### {title} ({total} lines changed)", ""]
        if group is groups[0][1] and step.exercises and practice:
            where = ", ".join(f"`{rel}`" for rel in stubbed) or "these files"
            lines += [f"In this practice copy {where} hold the exercises as stubs for you to "
                      "write (`CHAPTER.md` shows the same stubs where it lists them); read the "
                      "rest of the lesson in full too, as the stubs build on it.", ""]
        elif group is groups[0][1] and step.exercises:
            lines += [f"These files, and the chapter, hold the exercises already solved: to write "
                      f"them yourself, make your practice copy (`pi-course practice {step.id:02d} "
                      f"DIR`) before you read the functions they name, and read the chapter "
                      f"there: its `CHAPTER.md` shows your stubs instead.", ""]
        lines += ["| file | lines | why |", "|---|---|---|"]
        for rel, added, removed in sorted(group, key=lambda r: order[r[0]]):
            why = step.why.get(
                rel, "tests introduced at this step" if rel.startswith("tests/") else ""
            )
            lines.append(f"| `{rel}` | +{added} −{removed} | {why} |")
        parts.append("\n".join(lines))
    parts.append("The full delta is in [`CHANGES.diff`](CHANGES.diff), lesson files first.")
    return "\n\n".join(parts)


def step_text(layout: Layout, step: Step, name: str) -> str:
    path = layout.steps / step.folder / name
    if not path.is_file():
        raise CourseError(f"step {step.id:02d} needs shared/steps/{step.folder}/{name}")
    return path.read_text(encoding="utf-8")


def learner_files(layout: Layout, manifest: Manifest, step: int, practice: bool) -> dict[str, str]:
    files = code_files(layout, manifest, step, practice)
    files.update(test_files(layout, step))
    files["demo.py"] = step_text(layout, manifest.step(step), "demo.py")
    return files


def build(layout: Layout, manifest: Manifest, step: int, practice: bool = False) -> dict[str, str]:
    """Every generated file of checkpoint `step` except `demo.out` (which needs a run)."""
    current = manifest.step(step)
    files = learner_files(layout, manifest, step, False)
    before = learner_files(layout, manifest, step - 1, False) if step > 0 else {}
    readme = with_chinese_link(layout, current, step_text(layout, current, "README.md"))
    stubbed: tuple[str, ...] = ()
    rows = line_changes(before, files)
    if practice:  # a practice copy shows the stubs, never the answers, in its diff too
        files = learner_files(layout, manifest, step, True)
        stubbed = tuple(rel for rel in current.lesson
                        if f"exercise {step:02d}-" in files.get(rel, ""))
    table = changes_table(current, rows, practice, stubbed)
    extras = {
        "README.md": readme.replace(CHANGES_PLACEHOLDER, table)
                           .replace(EXERCISES_PLACEHOLDER, exercises_section(current)),
        "CHANGES.diff": changes_diff(before, files, current),
    }
    return {**files, **extras}


def with_chinese_link(layout: Layout, step: Step, readme: str) -> str:
    """The README with a link to the Chinese chapter under its title, once one is written."""
    if not (layout.root / TRANSLATED / f"{step.folder}.md").is_file():
        return readme
    title, _, rest = readme.partition("\n")
    link = f"**中文**：[本章中文版](../../{PUBLISHED}/zh/{step.folder}.md)"
    return f"{title}\n\n{link}\n{rest}"


def relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
