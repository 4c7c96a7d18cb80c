"""Fresh variants of the fixtures (`--fresh SEED`): a real model cannot have seen them before.

A public fixture may end up in a model's training data; then "fixed the bug" proves memory,
not skill. So a case may say how its fixture can vary (`fresh:` in the case file): names to
rename (whole identifiers, in file names, file contents, the prompt, the declared files and
the judges' arguments, so the judges follow the renaming) and other places for the bug, each
with the edits that move it and the judges that check it there. The seed chooses, through its
own `random.Random(f"{seed}/{case id}")`: the same seed gives byte-identical fixtures, another
seed other ones. The MockModel's scripts are written for the original fixture, so variants
are for real-model runs (`--model`).
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from course.evals.cases import Case, CaseError, FreshSpec

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")


def choices(spec: FreshSpec, seed: int, case_id: str) -> tuple[dict[str, str], int]:
    """The renaming (old → new) and the index of the bug placement the seed picks."""
    rng = random.Random(f"{seed}/{case_id}")
    renames = {old: rng.choice(options) for old, options in sorted(spec.rename.items())}
    bug = rng.randrange(len(spec.bugs)) if spec.bugs else -1
    return renames, bug


def renamer(renames: dict[str, str]) -> Any:
    """A function renaming every identifier in a text; `_` and `.` separate identifiers."""
    if not renames:
        return lambda text: text
    names = sorted(renames, key=len, reverse=True)
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, names)) +
                         r")(?![A-Za-z0-9])")
    return lambda text: pattern.sub(lambda m: renames[m[1]], text)


def renamed(value: Any, rename: Any) -> Any:
    """Every string inside a judge argument (or a list, a mapping) renamed."""
    if isinstance(value, str):
        return rename(value)
    if isinstance(value, list | tuple):
        return [renamed(item, rename) for item in value]
    if isinstance(value, dict):
        return {key: renamed(item, rename) for key, item in value.items()}
    return value


def write_variant(template: Path, folder: Path, edits: Any, rename: Any) -> None:
    """The template copied into `folder`, the bug moved, then every name renamed."""
    shutil.copytree(template, folder, symlinks=True, ignore=IGNORED)
    for edit in edits:
        file = folder / edit.file
        text = file.read_text(encoding="utf-8") if file.is_file() else ""
        if text.count(edit.find) != 1:
            raise CaseError(f"fresh: {edit.file}: the bug's search text is not there once")
        file.write_text(text.replace(edit.find, edit.replace), encoding="utf-8")
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_file() and not path.is_symlink():
            with contextlib.suppress(UnicodeDecodeError):  # a binary file keeps its bytes
                path.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
        if (new := rename(path.name)) != path.name:
            path.rename(path.with_name(new))


def digest(folder: Path) -> str:
    """A short fingerprint of a fixture: equal exactly when every path and byte is equal."""
    hashed = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        hashed.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()[:12]


def fresh_case(case: Case, seed: int, root: Path) -> Case:
    """The case on a new variant of its fixture, written under `root` (a case without a
    `fresh:` section, or without a fixture, stays as it is)."""
    spec = case.spec.fresh
    if spec is None or case.workspace is None:
        return case
    renames, bug = choices(spec, seed, case.id)
    rename = renamer(renames)
    placement = spec.bugs[bug] if bug >= 0 else None
    folder = root / case.id
    write_variant(case.workspace, folder, placement.edits if placement else (), rename)
    judges = placement.judges if placement and placement.judges is not None else case.spec.judges
    new_spec = case.spec.model_copy(update={
        "prompt": rename(case.spec.prompt),
        "files": tuple(rename(name) for name in case.spec.files),
        "judges": tuple(renamed(dict(judge), rename) for judge in judges),
    })
    return replace(case, spec=new_spec, workspace=folder, fixture=digest(folder))
