"""The Chinese edition: each translation names the English it translates, and stays current."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pi_course import translations
from pi_course.cli import app
from pi_course.manifest import load_manifest
from pi_course.paths import find_layout
from pi_course.translations import (
    PENDING,
    ROOT_README,
    ROOT_README_ZH,
    check_translations,
    existing,
    hash_line,
    prose_counts,
    required_translations,
    zh_links,
)

ROOT = find_layout(Path(__file__)).root
MANIFEST = load_manifest(ROOT / "checkpoints" / "manifest.toml")


@dataclass
class Found:
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def checked(root: Path) -> Found:
    report = Found()
    check_translations(root, MANIFEST, report)
    return report


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The chapter sources, docs/ and both READMEs: all the translation checks read."""
    shutil.copytree(ROOT / "shared" / "chapters", tmp_path / "shared" / "chapters")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    for name in (ROOT_README, ROOT_README_ZH):
        if (ROOT / name).is_file():
            shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "checkpoints").mkdir()  # what makes a folder a checkout for the CLI
    shutil.copy(ROOT / "checkpoints" / "manifest.toml", tmp_path / "checkpoints")
    return tmp_path


def written() -> list[str]:
    return [t.chinese for t in existing(ROOT, MANIFEST)]


def test_the_committed_translations_are_current() -> None:
    assert written(), "no translation written yet"
    assert checked(ROOT).problems == []


@pytest.mark.parametrize("chinese", written())
def test_outside_code_each_translation_has_more_chinese_than_latin(chinese: str) -> None:
    text = (ROOT / chinese).read_text(encoding="utf-8")
    han, latin = prose_counts(text)
    assert han > latin, f"{chinese}: {han} Chinese characters, {latin} Latin letters"
    published = ROOT / chinese.replace("shared/chapters/zh/", "docs/zh/")
    if chinese != ROOT_README_ZH:
        han, latin = prose_counts(published.read_text(encoding="utf-8"))
        assert han > latin, f"{published}: {han} Chinese characters, {latin} Latin letters"


def test_every_chapter_protocol_tutor_and_readme_is_required() -> None:
    english = {t.english for t in required_translations(MANIFEST)}
    chapters = {f"shared/chapters/{s.folder}.md" for s in MANIFEST.steps}
    assert english == chapters | {"shared/chapters/protocol.md", "shared/chapters/tutor.md",
                                  "README.md"}


def test_changing_one_english_chapter_names_its_stale_translation(copy: Path) -> None:
    translation = next(t for t in existing(copy, MANIFEST) if t.published)
    english = copy / translation.english
    english.write_text(english.read_text(encoding="utf-8") + "\nOne more sentence.\n",
                       encoding="utf-8")
    problems = checked(copy).problems
    stale = [p for p in problems if p.startswith(f"{translation.chinese} (published as "
                                                 f"{translation.published}): translates "
                                                 f"{translation.english} at sha256 ")]
    assert len(stale) == 1 and "which has changed since" in stale[0], problems
    assert len(problems) == 1, problems


def test_the_hash_command_prints_the_line_that_makes_it_current_again(copy: Path) -> None:
    translation = next(t for t in existing(copy, MANIFEST) if t.published)
    english = copy / translation.english
    english.write_text(english.read_text(encoding="utf-8") + "\nOne more.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["translation-hash", str(english)],
                                env={"PI_COURSE_ROOT": str(copy)})
    assert result.exit_code == 0, result.output
    assert result.output.strip() == hash_line(copy, translation.english)
    chinese = copy / translation.chinese
    lines = chinese.read_text(encoding="utf-8").split("\n")
    chinese.write_text("\n".join([result.output.strip(), *lines[1:]]), encoding="utf-8")
    assert checked(copy).problems == []


def test_a_missing_translation_fails_unless_it_is_pending(copy: Path) -> None:
    done = [t for t in existing(copy, MANIFEST) if t.english not in PENDING]
    for t in done:
        (copy / t.chinese).unlink()
        assert f"{t.chinese}: missing, the Chinese translation of {t.english} (start it with " \
            f"`pi-course translation-hash {t.english}`)" in checked(copy).problems
    pending = [t for t in required_translations(MANIFEST) if t.english in PENDING]
    for t in pending:
        (copy / t.chinese).unlink(missing_ok=True)
    report = checked(copy)
    assert not any(t.chinese in p for t in pending for p in report.problems), report.problems
    assert {f"{t.chinese}: not translated yet ({t.english})" for t in pending} \
        <= set(report.warnings)


def test_a_translation_must_inline_the_same_code_and_draw_the_same_diagrams(copy: Path) -> None:
    translation = next(t for t in existing(copy, MANIFEST) if t.published)
    chinese = copy / translation.chinese
    text = chinese.read_text(encoding="utf-8")
    include = next(line for line in text.splitlines() if line.startswith("<!-- include"))
    chinese.write_text(text.replace(include, "", 1), encoding="utf-8")
    assert any(p.startswith(f"{translation.chinese}: its include lines differ")
               for p in checked(copy).problems)


def test_a_translation_without_its_source_line_is_named(copy: Path) -> None:
    translation = next(t for t in existing(copy, MANIFEST) if t.published)
    chinese = copy / translation.chinese
    chinese.write_text("\n".join(chinese.read_text(encoding="utf-8").split("\n")[1:]),
                       encoding="utf-8")
    assert any(p.startswith(f"{translation.chinese}: must start with `<!-- source: "
                            f"{translation.english} sha256:HEX -->`")
               for p in checked(copy).problems)


def test_mostly_english_prose_is_refused(copy: Path) -> None:
    translation = next(t for t in existing(copy, MANIFEST) if t.published)
    chinese = copy / translation.chinese
    english = (copy / translation.english).read_text(encoding="utf-8")
    chinese.write_text(chinese.read_text(encoding="utf-8") + english, encoding="utf-8")
    assert any(p.startswith(f"{translation.chinese}: outside code it holds ")
               for p in checked(copy).problems)


def test_a_stray_chinese_page_is_named(copy: Path) -> None:
    (copy / "shared" / "chapters" / "zh" / "notes.md").write_text("# 笔记\n", encoding="utf-8")
    assert any(p.startswith("shared/chapters/zh/notes.md: translates no English page")
               for p in checked(copy).problems)


def test_code_comments_and_link_targets_do_not_count_as_prose() -> None:
    text = ("<!-- source: x sha256:0 -->\n中文说明 [链接](some/long/english/path.md)\n"
            "`inline code here`\n```python\nenglish_code = 'lots of latin letters'\n```\n"
            "<!-- include pi/ai/stream.py::AssistantMessageEventStream -->\n")
    assert prose_counts(text) == (6, 0)


def test_links_from_docs_zh_lead_to_chinese_pages_or_back_up() -> None:
    translated = {"protocol.md"}
    assert zh_links("见 [协议](protocol.md)。", translated) == "见 [协议](protocol.md)。"
    assert zh_links("[x](protocol.md#stream-events)", translated) == \
        "[x](../protocol.md#stream-events)"
    assert zh_links("[x](tutor.md)", translated) == "[x](../tutor.md)"
    assert zh_links("[s](../shared/protocol/pi-ai.schema.json)", translated) == \
        "[s](../../shared/protocol/pi-ai.schema.json)"
    assert zh_links("[w](https://example.com/a.md) [h](#top)", translated) == \
        "[w](https://example.com/a.md) [h](#top)"


def test_show_lang_zh_prints_the_chinese_chapter() -> None:
    translation = next(t for t in existing(ROOT, MANIFEST) if t.page[:2].isdigit())
    result = CliRunner().invoke(app, ["show", translation.page[:2], "--lang", "zh"],
                                env={"PI_COURSE_ROOT": str(ROOT), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    title = next(line for line in (ROOT / translation.chinese).read_text(encoding="utf-8")
                 .splitlines() if line.startswith("# "))
    assert title[2:] in result.output
    assert prose_counts(result.output)[0] > 100


def test_show_lang_zh_of_an_untranslated_step_says_so_in_one_line(copy: Path) -> None:
    for step in MANIFEST.steps:
        (copy / "checkpoints" / step.folder).mkdir(parents=True)
    shutil.copy(ROOT / "checkpoints" / "manifest.toml", copy / "checkpoints" / "manifest.toml")
    (copy / "docs" / "zh" / "03_model.md").unlink(missing_ok=True)
    result = CliRunner().invoke(app, ["show", "03", "--lang", "zh"],
                                env={"PI_COURSE_ROOT": str(copy)})
    assert result.exit_code == 2
    assert "error: step 03 has no Chinese chapter yet (shared/chapters/zh/03_model.md)" \
        in result.output


def test_show_refuses_an_unknown_language() -> None:
    result = CliRunner().invoke(app, ["show", "00", "--lang", "fr"],
                                env={"PI_COURSE_ROOT": str(ROOT)})
    assert result.exit_code == 2
    assert "unknown language 'fr' (use one of: en, zh)" in result.output


def test_each_translated_step_links_both_ways_from_docs_and_its_checkpoint() -> None:
    for t in existing(ROOT, MANIFEST):
        if not t.page[:2].isdigit():
            continue
        folder = ROOT / "checkpoints" / t.page.removesuffix(".md")
        for page in (folder / "README.md", folder / "CHAPTER.md"):
            assert f"](../../docs/zh/{t.page})" in page.read_text(encoding="utf-8"), page
        assert (folder / "../../docs/zh" / t.page).resolve().is_file()
        assert f"[中文](zh/{t.page})" in (ROOT / "docs" / t.page).read_text(encoding="utf-8")
        assert f"[English](../{t.page})" in (ROOT / "docs/zh" / t.page).read_text(encoding="utf-8")


def test_adding_a_pending_translation_is_all_it_takes_to_bring_it_under_the_checks(
    copy: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    pending = next(t for t in required_translations(MANIFEST) if t.published)
    (copy / pending.chinese).unlink(missing_ok=True)
    monkeypatch.setattr(translations, "PENDING", frozenset({pending.english}))
    assert f"{pending.chinese}: not translated yet ({pending.english})" in checked(copy).warnings
    stale = f"<!-- source: {pending.english} sha256:{'0' * 64} -->\n# 标题\n\n中文正文。\n"
    (copy / pending.chinese).write_text(stale, encoding="utf-8")
    report = checked(copy)
    assert any(p.startswith(f"{pending.chinese} (published as {pending.published}): translates "
                            f"{pending.english} at sha256 000000000000…") for p in report.problems)
    assert f"{pending.chinese} is written: remove {pending.english} from PENDING in " \
        "shared/pi_course/translations.py" in report.warnings
