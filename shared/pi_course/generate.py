"""Write every checkpoint folder from the marked source, changing only what differs.

Each folder is rendered in memory (`render.build`), written file by file, stale files are
removed, and the demo is run in the new folder so that `demo.out` holds its checked output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from pi_course.docs import render_chapter
from pi_course.manifest import Manifest
from pi_course.paths import CourseError, Layout
from pi_course.render import build

DEMO_OUTPUT = "demo.out"
CHAPTER = "CHAPTER.md"
KEEP = {DEMO_OUTPUT}


def folder_files(folder: Path) -> set[str]:
    """Files in a generated folder, skipping Python's and pytest's caches."""
    return {
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and ".pytest_cache" not in path.parts
    }


def write_folder(folder: Path, files: dict[str, str]) -> list[str]:
    """Make `folder` hold exactly `files` (plus demo.out); return what changed."""
    changed: list[str] = []
    for rel, text in sorted(files.items()):
        target = folder / rel
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
            changed.append(rel)
    for rel in sorted(folder_files(folder) - set(files) - KEEP):
        (folder / rel).unlink()
        changed.append(f"{rel} (removed)")
    return changed


def run_demo(folder: Path) -> str:
    """The demo's output, from a fresh process in the checkpoint folder."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "COLUMNS": "100"}
    result = subprocess.run(
        [sys.executable, "demo.py"], cwd=folder, capture_output=True, text=True, env=env,
        check=False,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise CourseError(f"{folder.name}/demo.py failed: {last}")
    return result.stdout


def expected_files(layout: Layout, manifest: Manifest, step: int) -> dict[str, str]:
    """Everything generated for a step except demo.out: code, tests, README, diff, chapter."""
    files = build(layout, manifest, step)
    files[CHAPTER] = render_chapter(layout, manifest.step(step), files)
    return files


def generate(layout: Layout, manifest: Manifest) -> list[str]:
    """Regenerate every checkpoint; return the paths written or removed."""
    changed: list[str] = []
    wanted = {step.folder for step in manifest.steps}
    for stale in sorted(layout.checkpoints.glob("[0-9][0-9]_*")):
        if stale.is_dir() and stale.name not in wanted:
            shutil.rmtree(stale)
            changed.append(f"checkpoints/{stale.name}/ (removed)")
    for step in manifest.steps:
        folder = layout.checkpoints / step.folder
        written = write_folder(folder, expected_files(layout, manifest, step.id))
        output = run_demo(folder)
        if written or not (folder / DEMO_OUTPUT).is_file():
            (folder / DEMO_OUTPUT).write_text(output, encoding="utf-8", newline="\n")
        elif (folder / DEMO_OUTPUT).read_text(encoding="utf-8") != output:
            (folder / DEMO_OUTPUT).write_text(output, encoding="utf-8", newline="\n")
            written.append(DEMO_OUTPUT)
        changed.extend(f"checkpoints/{step.folder}/{rel}" for rel in written)
    return changed
