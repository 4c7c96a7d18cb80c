"""What every family checks: one clear line, no traceback, no key in any form, no escape."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hostile.runner import Check

CORE = "q7Zt9Wv2Kx4Lm8Np3Rb6Yc1"  # the part of a key no ordinary text contains
KEY = f"sk-HOSTILE-{CORE}"
OUTSIDE_SECRET = "OUTSIDE-7f3a91c2-never-read"  # in a file next to, not in, the workspace
INTERNALS = ("Traceback (most recent call last)", "object has no attribute",
             "'NoneType'", "is not subscriptable", "unhashable type", "KeyError",
             "IndexError", "AttributeError", "TypeError", "RecursionError",
             "UnicodeEncodeError", "UnicodeDecodeError", "codec can't", "maximum recursion",
             'File "/')
TERMINAL_CONTROLS = ("\x1b", "\x07", "\x9b", "\x9d")
PLAIN_ENV = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb", "FORCE_COLOR": None,
             "OPENAI_API_KEY": None, "ANTHROPIC_API_KEY": None, "PI_COURSE_DETERMINISTIC": "1"}


def as_json(data: Any) -> str:
    """JSON that any reader reads back the same (lone surrogates escaped, as JSON allows)."""
    return json.dumps(data, separators=(",", ":"))


def key_forms(key: str = KEY) -> list[str]:
    """Every way a key may show: as it is, trimmed, escaped, and any 8 characters of it."""
    core = key.strip()
    forms = {key, core, repr(key)[1:-1], json.dumps(key)[1:-1]}
    secret = core.split("-")[-1]
    forms |= {secret[i:i + 8] for i in range(len(secret) - 7)}
    return sorted(forms, key=len, reverse=True)


def leak_in(text: str, key: str = KEY) -> str | None:
    """The first form of `key` found in `text`, or None."""
    return next((form for form in key_forms(key) if form and form in text), None)


def no_leak(check: Check, where: str, texts: Iterable[str], key: str = KEY) -> None:
    for text in texts:
        found = leak_in(text, key)
        if found is not None:
            at = text.find(found)
            check.leaked(f"{where}: {found!r} in …{text[max(0, at - 40):at + 40]!r}…")
            return


def files_under(root: Path) -> list[Path]:
    found = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                found.append(path)
    return found


def file_texts(root: Path) -> list[str]:
    """Every regular file below `root`, as text (undecodable bytes kept as escapes)."""
    return [path.read_bytes().decode("utf-8", "surrogateescape") for path in files_under(root)]


def no_leak_in_files(check: Check, root: Path, key: str = KEY) -> None:
    for path in files_under(root):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        found = leak_in(text, key)
        if found is not None:
            check.leaked(f"file {path.relative_to(check.root)} holds {found!r}")
            return


def plain(check: Check, where: str, texts: Sequence[str], internals: bool = True) -> None:
    """No traceback, no Python internals (unless they are the subject: an extension's own
    exception is news for its author), no raw terminal control character."""
    marks = INTERNALS if internals else INTERNALS[:1] + INTERNALS[-1:]
    for text in texts:
        internal = next((mark for mark in marks if mark in text), None)
        if internal is not None:
            at = text.find(internal)
            check.crash(f"{where}: shows {internal!r}: …{text[max(0, at - 60):at + 60]!r}")
            return
        control = next((c for c in TERMINAL_CONTROLS if c in text), None)
        if control is not None:
            check.crash(f"{where}: prints a raw terminal control {control!r}")
            return


def one_error_line(check: Check, where: str, stderr: str, *names: str) -> None:
    """stderr holds exactly one `error:` line (warnings aside) naming one of `names`."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if not line.startswith("warning:")]
    if len(errors) != 1:
        check.crash(f"{where}: expected one error line, got {len(errors)}: {stderr[:300]!r}")
    elif not any(name in errors[0] for name in names):
        check.crash(f"{where}: the error does not name {names[0]!r}: {errors[0][:200]!r}")


def make_outside(check: Check) -> Path:
    """A folder next to the workspace with a secret file in it; nothing may touch it."""
    outside = check.root / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text(f"{OUTSIDE_SECRET}\n{KEY}\n")
    return outside


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in files_under(root)}


def outside_untouched(check: Check, before: dict[str, bytes], texts: Iterable[str]) -> None:
    """Nothing outside the workspace was written, and its secret was not read out."""
    after = snapshot(check.root / "outside")
    if after != before:
        changed = sorted(set(after) ^ set(before)
                         | {k for k in before if after.get(k) != before[k]})
        check.escape(f"written outside the workspace: {changed[:3]}")
    for text in texts:
        if OUTSIDE_SECRET in text:
            check.escape("the content of a file outside the workspace came out")
            return


def invoke(app: Any, args: Sequence[str], env: dict[str, str | None] | None = None,
           stdin: str | None = None) -> tuple[int, str, str, BaseException | None]:
    """Run a typer app in-process: exit code, stdout, stderr, and an escaped exception."""
    from typer.testing import CliRunner
    result = CliRunner().invoke(app, list(args), env={**PLAIN_ENV, **(env or {})},
                                input=stdin)
    escaped = result.exception
    if isinstance(escaped, SystemExit):
        escaped = None
    return result.exit_code, result.stdout, result.stderr, escaped


def clean_cli(check: Check, where: str, code: int, out: str, err: str,
              escaped: BaseException | None, allowed: Sequence[int],
              internals: bool = True) -> None:
    """The common CLI promises: a documented exit code, no traceback, no raw controls."""
    if escaped is not None:
        check.crash(f"{where}: {type(escaped).__name__}: {str(escaped)[:200]}")
        return
    if code not in allowed:
        check.crash(f"{where}: exit code {code}, documented {list(allowed)}: {err[:200]!r}")
    plain(check, where, [out, err], internals)
