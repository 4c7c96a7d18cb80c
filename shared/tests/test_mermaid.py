"""The chapters' diagrams: enough of them, and CI's renderer really fails on a broken one."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_course.paths import find_layout

ROOT = find_layout(Path(__file__)).root
CHECK = ROOT / "scripts" / "check_mermaid.py"
BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
               None)
needs_browser = pytest.mark.skipif(BROWSER is None or shutil.which("npm") is None,
                                   reason="needs chromium and npm (installed by .ci/run)")

GOOD = "flowchart LR\n    start --> delta --> done"
BROKEN = "flowchart LR\n    start --> --> done("


def chapter(tmp_path: Path, *diagrams: str) -> Path:
    page = tmp_path / "chapter.md"
    blocks = [f"```mermaid\n{diagram}\n```\n" for diagram in diagrams]
    page.write_text("# A chapter\n\n" + "\nSome prose.\n\n".join(blocks), encoding="utf-8")
    return page


def check(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECK), *map(str, files)], capture_output=True,
                          text=True, timeout=300, check=False)


def test_at_least_six_chapters_carry_a_diagram() -> None:
    with_diagram = [page.name for page in sorted((ROOT / "shared" / "chapters").glob("*.md"))
                    if "```mermaid\n" in page.read_text(encoding="utf-8")]
    assert len(with_diagram) >= 6, with_diagram


def test_published_chapters_keep_their_diagrams() -> None:
    for source in sorted((ROOT / "shared" / "chapters").glob("*.md")):
        count = source.read_text(encoding="utf-8").count("```mermaid\n")
        assert (ROOT / "docs" / source.name).read_text(encoding="utf-8").count(
            "```mermaid\n") == count, source.name


@needs_browser
def test_a_broken_diagram_fails_and_is_named_by_line(tmp_path: Path) -> None:
    result = check(chapter(tmp_path, GOOD, BROKEN))
    assert result.returncode == 1, result.stderr
    assert f"{tmp_path / 'chapter.md'}:10: Parse error" in result.stdout
    assert result.stdout.splitlines()[-1] == "mermaid: 1 diagrams rendered, 1 failed"


@needs_browser
def test_diagrams_that_parse_all_render(tmp_path: Path) -> None:
    result = check(chapter(tmp_path, GOOD, "sequenceDiagram\n    Agent->>Model: request"))
    assert (result.returncode, result.stdout) == (0, "mermaid: 2 diagrams rendered, 0 failed\n")
