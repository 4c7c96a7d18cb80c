"""The Chinese edition: translations that say which English text they translate, checked.

A translation is written by hand in `shared/chapters/zh/NN_slug.md` (and `README.zh-CN.md` for
the root README). Its first line names the English file and that file's sha256:

    <!-- source: shared/chapters/06_loop.md sha256:9f2c… -->

`pi-course translation-hash FILE` prints that line. When the English file changes, its hash
no longer matches and `verify` names the stale translation, so the two editions cannot drift
apart in silence. A translation keeps the English include lines and mermaid blocks exactly
(the same code is inlined, the same diagrams drawn); `generate` publishes it to `docs/zh/`.

Which translations must exist is explicit: `required_translations`. The ones nobody has
written yet are listed in `PENDING` and only warned about; adding such a file is all it takes
to bring it under the checks, and once `PENDING` is empty every missing translation fails.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pi_course.docs import PUBLISHED, SOURCES, TRANSLATED, banner, broken_links, expanded
from pi_course.manifest import Manifest
from pi_course.paths import Layout

ROOT_README = "README.md"
ROOT_README_ZH = "README.zh-CN.md"
GLOSSARY = "GLOSSARY.md"  # the translators' word list; not a translation, not published
ZH_PUBLISHED = f"{PUBLISHED}/zh"
ZH_INDEX = "README.md"
# Translations not written yet. Each is only warned about while missing; empty means complete.
PENDING: frozenset[str] = frozenset()  # every required translation is written
SOURCE_LINE = re.compile(r"^<!-- source: (?P<path>\S+) sha256:(?P<hex>[0-9a-f]{64}) -->$")
ZH_LINK = re.compile(r"\]\((?!https?:|#|mailto:|/)(?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
CHINESE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[A-Za-z]")


class Report(Protocol):
    problems: list[str]
    warnings: list[str]


@dataclass(frozen=True)
class Translation:
    """One English file and its Chinese translation, as paths from the checkout's root."""

    english: str
    chinese: str
    published: str | None  # where `generate` publishes it; None when the file is its own page

    @property
    def page(self) -> str:
        """The name under `docs/zh/` (`06_loop.md`), or '' for the root README."""
        return self.published.removeprefix(f"{ZH_PUBLISHED}/") if self.published else ""


def required_translations(manifest: Manifest) -> list[Translation]:
    """Every file the Chinese edition translates: each chapter, protocol, tutor, README."""
    pages = [f"{step.folder}.md" for step in manifest.steps] + ["protocol.md", "tutor.md"]
    found = [Translation(f"{SOURCES}/{page}", f"{TRANSLATED}/{page}", f"{ZH_PUBLISHED}/{page}")
             for page in pages]
    return [*found, Translation(ROOT_README, ROOT_README_ZH, None)]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def hash_line(root: Path, english: str) -> str:
    """The first line a translation of `english` (a path from the root) must start with."""
    return f"<!-- source: {english} sha256:{sha256_of(root / english)} -->"


def existing(root: Path, manifest: Manifest) -> list[Translation]:
    """The required translations that have been written."""
    return [t for t in required_translations(manifest) if (root / t.chinese).is_file()]


def zh_links(line: str, translated_pages: set[str]) -> str:
    """A link written as seen from `docs/`, made to work from `docs/zh/`.

    A page that has a Chinese version is linked in Chinese; anything else (an English page, a
    link with an anchor, whose heading is only English, a file elsewhere) leads back up.
    """
    def fix(match: re.Match[str]) -> str:
        target, anchor = match["target"], match["anchor"] or ""
        if target in translated_pages and not anchor:
            return f"]({target})"
        return f"](../{target}{anchor})"
    return ZH_LINK.sub(fix, line)


def outside_code(lines: list[str]) -> list[str]:
    """The lines that are not inside a fenced block (mermaid and code alike)."""
    kept: list[str] = []
    fenced = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return kept


def publish_translation(
    layout: Layout, translation: Translation, files: dict[str, str], code_from: str,
    translated_pages: set[str],
) -> str:
    """`docs/zh/NAME`: the source line, a banner, the way back to English, code inlined."""
    assert translation.published is not None
    first, *body = expanded(layout, translation.chinese, files)
    fenced = False
    linked: list[str] = []
    for line in body:
        if FENCE.match(line):
            fenced = not fenced
        linked.append(line if fenced else zh_links(line, translated_pages))
    switch = f"[English](../{translation.page}) · **中文**"
    return "\n".join([first, banner(translation.chinese, code_from), switch, "", *linked]) + "\n"


def zh_index(pages: dict[str, str]) -> str:
    """`docs/zh/README.md`: the Chinese chapters written so far, with their Chinese titles."""
    lines = ["<!-- generated by `pi-course generate` from shared/chapters/zh/ -->",
             "[English](../README.md) · **中文**", "", "# 中文版章节", "",
             "每一章对应一个步骤，内嵌该步骤检查点中的代码。尚未翻译的章节请阅读英文版。", ""]
    for name in sorted(pages):
        heading = next((line for line in pages[name].splitlines() if line.startswith("# ")), "")
        lines.append(f"- [{heading[2:].strip() or name}]({name})")
    return "\n".join(lines) + "\n"


def prose_counts(text: str) -> tuple[int, int]:
    """(Chinese characters, Latin letters) outside code: fences, inline code, comments, URLs."""
    prose = "\n".join(outside_code(text.splitlines()))
    for pattern in (HTML_COMMENT, INLINE_CODE, LINK_TARGET):
        prose = pattern.sub(" ", prose)
    return len(CHINESE.findall(prose)), len(LATIN.findall(prose))


def fenced_blocks(text: str, language: str) -> list[str]:
    """Every fenced block opened with ```` ```language ````, as text."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if current is None and line.strip() == f"```{language}":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def include_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("<!-- include")]


def check_translation(root: Path, t: Translation, report: Report) -> None:
    """One written translation: current source line, same code and diagrams, mostly Chinese."""
    text = (root / t.chinese).read_text(encoding="utf-8")
    first = text.splitlines()[0] if text else ""
    shown = f"{t.chinese} (published as {t.published})" if t.published else t.chinese
    fix = f"`pi-course translation-hash {t.english}` prints the line"
    match = SOURCE_LINE.match(first)
    if not (root / t.english).is_file():
        report.problems.append(f"{t.chinese}: translates {t.english}, which does not exist")
        return
    if match is None or match["path"] != t.english:
        report.problems.append(f"{t.chinese}: must start with `<!-- source: {t.english} "
                               f"sha256:HEX -->` ({fix})")
    elif match["hex"] != sha256_of(root / t.english):
        report.problems.append(
            f"{shown}: translates {t.english} at sha256 {match['hex'][:12]}…, which has changed "
            f"since: update the translation and its source line ({fix})")
    english = (root / t.english).read_text(encoding="utf-8")
    if include_lines(text) != include_lines(english):
        report.problems.append(f"{t.chinese}: its include lines differ from {t.english} "
                               "(a translation inlines the same code, in the same order)")
    if fenced_blocks(text, "mermaid") != fenced_blocks(english, "mermaid"):
        report.problems.append(f"{t.chinese}: its mermaid diagrams differ from {t.english} "
                               "(a translation draws the same diagrams)")
    chinese, latin = prose_counts(text)
    if chinese <= latin:
        report.problems.append(f"{t.chinese}: outside code it holds {chinese} Chinese characters "
                               f"and {latin} Latin letters; the prose must be mostly Chinese")


def check_translations(root: Path, manifest: Manifest, report: Report) -> None:
    """Every required translation is written (or pending) and current; nothing stray."""
    required = required_translations(manifest)
    for t in required:
        if (root / t.chinese).is_file():
            check_translation(root, t, report)
            if t.english in PENDING:
                report.warnings.append(f"{t.chinese} is written: remove {t.english} from "
                                       "PENDING in shared/pi_course/translations.py")
        elif t.english in PENDING:
            report.warnings.append(f"{t.chinese}: not translated yet ({t.english})")
        else:
            report.problems.append(f"{t.chinese}: missing, the Chinese translation of "
                                   f"{t.english} (start it with `pi-course translation-hash "
                                   f"{t.english}`)")
    known = {Path(t.chinese).name for t in required if t.published} | {GLOSSARY}
    folder = root / TRANSLATED
    for stray in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if stray.name not in known:
            report.problems.append(f"{TRANSLATED}/{stray.name}: translates no English page "
                                   f"(name it as the page in {SOURCES}/ it translates)")
    readme = root / ROOT_README_ZH
    if readme.is_file():
        for target in broken_links(root, readme.read_text(encoding="utf-8")):
            report.problems.append(f"{ROOT_README_ZH}: broken link {target}")
