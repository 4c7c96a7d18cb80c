"""verify: a clean checkout passes, and each kind of drift is named with its file."""

import shutil
from pathlib import Path

import pytest

from pi_course.generate import generate
from pi_course.manifest import load_manifest
from pi_course.paths import Layout, find_layout
from pi_course.verify import verify

ROOT = find_layout(Path(__file__)).root
COPIED = ("checkpoints", "docs", "evals", "mock_model", "shared/source", "shared/steps",
          "shared/protocol", "shared/chapters")
LINKED = "shared/data/pi-reference"
TOP_FILES = ("README.md", "README.zh-CN.md")  # the root README and its Chinese translation


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the course, with the large reference data linked rather than copied."""
    root = tmp_path_factory.mktemp("course")
    ignore = shutil.ignore_patterns("__pycache__")
    data = [f"shared/data/{d.name}" for d in (ROOT / "shared/data").iterdir() if d.is_dir()]
    for rel in [*COPIED, *data]:
        if rel != LINKED and (ROOT / rel).exists():
            shutil.copytree(ROOT / rel, root / rel, ignore=ignore)
    for name in TOP_FILES:
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, root / name)
    # Demos read the reference sessions: link them instead of copying 9 MB per test.
    (root / LINKED).symlink_to(ROOT / LINKED)
    return root


@pytest.fixture
def course(pristine: Path, tmp_path: Path) -> Layout:
    shutil.copytree(pristine, tmp_path / "course", symlinks=True)
    return Layout(tmp_path / "course")


def test_the_committed_checkout_verifies_clean() -> None:
    report = verify(Layout(ROOT))
    assert report.problems == []


def test_deleting_a_line_from_a_generated_file_is_named(course: Layout) -> None:
    target = course.checkpoints / "02_stream" / "pi" / "ai" / "stream.py"
    lines = target.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:20] + lines[21:]))
    problems = verify(course).problems
    assert any(p.startswith("checkpoints/02_stream/pi/ai/stream.py: line 21 differs")
               for p in problems), problems


def test_a_hand_added_file_in_a_checkpoint_is_named(course: Layout) -> None:
    (course.checkpoints / "01_protocol" / "pi" / "extra.py").write_text("x = 1\n")
    assert "checkpoints/01_protocol/pi/extra.py: not generated from the source (remove it)" \
        in verify(course).problems


def test_a_test_without_a_start_step_is_refused(course: Layout) -> None:
    (course.source / "tests" / "test_loose.py").write_text("def test_x():\n    pass\n")
    problems = verify(course).problems
    assert any("test_loose.py: a test module must declare its first step" in p
               for p in problems), problems


def test_a_public_name_that_disappears_is_named(course: Layout) -> None:
    facade = course.source / "pi" / "ai" / "__init__.py"
    retired = ' "parse_event",\n    # [only 02-02]\n    #| "produce",\n    # [end]\n'
    text = facade.read_text()
    assert ' "parse_event", "produce",\n' in text
    facade.write_text(text.replace(' "parse_event", "produce",\n', retired))
    generate(course, load_manifest(course.manifest))
    problems = verify(course).problems
    assert any("public name pi.ai.produce disappeared" in p for p in problems), problems


def test_an_upward_import_is_named(course: Layout) -> None:
    module = course.source / "pi" / "ai" / "content.py"
    module.write_text(module.read_text() + "\n\ndef later() -> None:\n    import pi.agent.loop\n")
    generate(course, load_manifest(course.manifest))
    assert "pi/ai/content.py: imports pi.agent.loop, a higher layer" in verify(course).problems


def test_a_mode_importing_course_plumbing_sideways_is_named(course: Layout) -> None:
    module = course.source / "pi" / "modes" / "interactive.py"
    module.write_text(module.read_text() + "\nfrom course.session_cli import row_text\n")
    generate(course, load_manifest(course.manifest))
    assert ("pi/modes/interactive.py: imports course.session_cli, course plumbing the agent "
            "never imports") in verify(course).problems


def test_a_loose_module_in_the_agent_package_is_named(course: Layout) -> None:
    (course.source / "pi" / "helpers.py").write_text('"""Loose."""\n', encoding="utf-8")
    manifest = course.manifest.read_text(encoding="utf-8")
    course.manifest.write_text(
        manifest.replace('files = ["course/evals/__init__.py", ',
                         'files = ["pi/helpers.py", "course/evals/__init__.py", '),
        encoding="utf-8")
    generate(course, load_manifest(course.manifest))
    problems = verify(course).problems
    assert any(p.startswith("pi/helpers.py: pi/ holds only the layers") for p in problems), (
        problems)


def test_a_chapter_anchor_that_no_longer_resolves_is_named(course: Layout) -> None:
    chapter = course.root / "shared" / "chapters" / "02_stream.md"
    chapter.write_text(chapter.read_text() + "\n<!-- include pi/ai/stream.py::Vanished -->\n")
    problems = verify(course).problems
    assert any("shared/chapters/02_stream.md" in p and "`Vanished` not found" in p
               for p in problems), problems


def test_a_hand_edit_to_a_published_chapter_is_named(course: Layout) -> None:
    chapter = course.docs / "02_stream.md"
    lines = chapter.read_text().splitlines(keepends=True)
    chapter.write_text("".join([*lines[:4], "A sentence added by hand.\n", *lines[4:]]))
    problems = verify(course).problems
    assert "docs/02_stream.md: line 5 differs from what shared/chapters/02_stream.md generates " \
        "(edit the source, then run `pi-course generate`)" in problems, problems


def test_a_page_written_straight_into_docs_is_named(course: Layout) -> None:
    (course.docs / "notes.md").write_text("# Notes\n")
    assert "docs/notes.md: not generated (write it as shared/chapters/notes.md)" \
        in verify(course).problems


def test_a_new_chapter_source_is_published_with_its_anchors_expanded(course: Layout) -> None:
    (course.root / "shared" / "chapters" / "glossary.md").write_text(
        "# Glossary\n\n<!-- include pi/ai/stream.py::AssistantMessageEventStream.push -->\n")
    generate(course, load_manifest(course.manifest))
    page = (course.docs / "glossary.md").read_text()
    assert "```python\ndef push(self" in page and "<!-- include" not in page
    assert "- [Glossary](glossary.md)" in (course.docs / "README.md").read_text()
    assert verify(course).problems == []


def test_every_published_chapter_shows_code_and_no_include_comment() -> None:
    manifest = load_manifest(ROOT / "checkpoints" / "manifest.toml")
    for step in manifest.steps:
        text = (ROOT / "docs" / f"{step.folder}.md").read_text()
        assert "```python\n" in text, step.folder
        assert not [line for line in text.splitlines() if line.startswith("<!-- include")]


def test_an_unbalanced_marker_is_named(course: Layout) -> None:
    module = course.source / "pi" / "ai" / "events.py"
    module.write_text(module.read_text() + "\n# [from 05]\n")
    problems = verify(course).problems
    assert any(p.startswith("shared/source/pi/ai/events.py:") and "never closed" in p
               for p in problems), problems


def test_a_broken_link_in_a_step_readme_is_named(course: Layout) -> None:
    readme = course.steps / "02_stream" / "README.md"
    readme.write_text(readme.read_text() + "\nSee [the missing step](../99_nowhere/).\n")
    generate(course, load_manifest(course.manifest))
    assert "checkpoints/02_stream/README.md: broken link ../99_nowhere/" in verify(course).problems


def test_a_readme_demo_line_the_demo_no_longer_prints_is_named(course: Layout) -> None:
    readme = course.steps / "13_runtime" / "README.md"
    text = readme.read_text()
    readme.write_text(text.replace("2. a transient error", "2. an old transient error", 1))
    generate(course, load_manifest(course.manifest))
    assert ("checkpoints/13_runtime/README.md: shows '2. an old transient error, retried on a "
            "fake clock', which the demo no longer prints (copy it from demo.out)"
            ) in verify(course).problems


def test_changing_an_english_chapter_makes_verify_name_its_stale_translation(
    course: Layout,
) -> None:
    chapter = course.root / "shared" / "chapters" / "00_trace.md"
    chapter.write_text(chapter.read_text() + "\nOne more sentence.\n")
    generate(course, load_manifest(course.manifest))
    stale = [p for p in verify(course).problems if p.startswith(
        "shared/chapters/zh/00_trace.md (published as docs/zh/00_trace.md): translates "
        "shared/chapters/00_trace.md at sha256 ")]
    assert len(stale) == 1 and "which has changed since: update the translation" in stale[0]
