"""Bad MockModel scripts, given to `pi-agent -p --script` and to `python -m course trace`.

Both must refuse with exit code 2 and one `error:` line that names the script file, or run
(exit 0) when the script is odd but valid; never a traceback, never a hang.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from hostile.checks import clean_cli, invoke, one_error_line
from hostile.runner import Case, Check


def turns(*items: object) -> bytes:
    return json.dumps({"turns": list(items)}).encode()


def laughs(levels: int) -> bytes:
    """The billion laughs, YAML style: each alias doubles… nine times over."""
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        prev, name = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    lines.append(f"turns: [{{text: hi}}, *{chr(ord('a') + levels - 1)}]")
    return "\n".join(lines).encode()


SCRIPTS: dict[str, tuple[str, bytes]] = {
    "latin-1 YAML": ("s.yaml", "turns:\n  - text: caf\xe9\n".encode("latin-1")),
    "UTF-16 JSON": ("s.json", turns({"text": "hi"}).decode().encode("utf-16")),
    "UTF-8 with a BOM": ("s.json", b"\xef\xbb\xbf" + turns({"text": "hi"})),
    "invalid JSON": ("s.json", b'{"turns": [{"text": "hi"'),
    "invalid YAML": ("s.yaml", b"turns: [\n  - text: : :\n"),
    "YAML with tabs": ("s.yaml", b"turns:\n\t- text: hi\n"),
    "YAML python tag": ("s.yaml", b"turns: !!python/object/apply:os.system ['echo pwned']\n"),
    "billion laughs": ("s.yaml", laughs(9)),
    "top level is a list": ("s.json", b'[{"text": "hi"}]'),
    "top level is null": ("s.json", b"null"),
    "top level is a number": ("s.yaml", b"12\n"),
    "turns is an object": ("s.json", b'{"turns": {"text": "hi"}}'),
    "a turn is a number": ("s.json", turns(1)),
    "unknown field": ("s.json", turns({"text": "hi", "colour": "red"})),
    "usage: 12": ("s.json", turns({"text": "hi", "usage": 12})),
    "usage input negative": ("s.json", turns({"text": "hi", "usage": {"input": -1}})),
    "usage input 1e400": ("s.json", b'{"turns": [{"text": "hi", "usage": {"input": 1e400}}]}'),
    "usage input NaN": ("s.json", b'{"turns": [{"text": "hi", "usage": {"input": NaN}}]}'),
    "usage YAML .nan": ("s.yaml", b"turns:\n  - text: hi\n    usage: {input: .nan}\n"),
    "usage cost a string": ("s.json", turns({"text": "hi", "usage": {"cost": "free"}})),
    "delayMs negative": ("s.json", turns({"text": "hi", "delayMs": -5})),
    "delayMs a string": ("s.json", turns({"text": "hi", "delayMs": "soon"})),
    "unknown failure kind": ("s.json", turns({"fail": "meteor"})),
    "retryAfter YAML .inf": ("s.yaml", b"turns:\n  - fail: rate_limit\n    retryAfter: .inf\n"),
    "retryAfter a string": ("s.json", turns({"fail": "rate_limit", "retryAfter": "x"})),
    "stopReason a number": ("s.json", turns({"text": "hi", "stopReason": 5})),
    "text is a number": ("s.json", turns({"text": 5})),
    "toolCall arguments a list": ("s.json", turns({"toolCall": {"name": "ls", "arguments": [1]}})),
    "toolCall name empty": ("s.json", turns({"toolCall": {"name": ""}})),
    "toolCall without name": ("s.json", turns({"toolCall": {"arguments": {}}})),
    "parts and text together": ("s.json", turns({"text": "a", "parts": [{"text": "b"}]})),
    "nested 5000 deep": ("s.json", b'{"turns": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
    "unsupported extension": ("s.txt", turns({"text": "hi"})),
    "empty file": ("s.json", b""),
    "markup in the file name and a field": ("[bold]s.json", b'{"turns": [], "[/bold]": 1}'),
    "terminal escapes in the text (valid)": ("s.json", turns({"text": "\x1b]0;pwned\x07 hi"})),
    "lone surrogate in the text (valid)": ("s.json", b'{"turns": [{"text": "a\\ud800b"}]}'),
    "10,000 turns (valid)": ("s.json", turns(*([{"text": "hi"}] * 10_000))),
}
SPECIAL = {"a folder": "dir", "a FIFO": "fifo", "a link to /dev/zero": "zero", "missing": "none"}
VALID = ("(valid)",)


def place(check: Check, name: str) -> Path:
    if name in SPECIAL:
        path = check.root / "s.json"
        kind = SPECIAL[name]
        if kind == "dir":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "zero":
            path.symlink_to("/dev/zero")
        return path
    file_name, data = SCRIPTS[name]
    path = check.root / file_name
    path.write_bytes(data)
    return path


def expect(check: Check, where: str, name: str, path: Path,
           code: int, out: str, err: str, escaped: BaseException | None) -> None:
    valid = name.endswith(VALID)
    # The model's own text is printed as it is (it is the output), so only stderr must be
    # free of terminal controls here.
    clean_cli(check, where, code, "", err, escaped, allowed=(0,) if valid else (2,))
    if escaped is None and valid and code == 0 and not out.strip():
        check.lost(f"{where}: a valid script printed nothing")
    if code == 2:
        one_error_line(check, where, err, str(path), path.name)


def agent(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.modes.main import app
        path = place(check, name)
        (check.root / "work").mkdir()
        code, out, err, escaped = invoke(app, [
            "-p", "hi", "--script", str(path), "--cwd", str(check.root / "work"),
            "--session", str(check.root / "s.jsonl"), "--agent-dir", str(check.root / "agent")])
        expect(check, "pi-agent", name, path, code, out, err, escaped)
    return run


def trace(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from course.cli import app
        path = place(check, name)
        code, out, err, escaped = invoke(app, ["trace", str(path), "--workspace", str(check.root)])
        expect(check, "python -m course trace", name, path, code, out, err, escaped)
    return run


def cases() -> list[Case]:
    found = []
    for name in [*SCRIPTS, *SPECIAL]:
        found.append(Case("scripts", f"{name} / pi-agent -p --script", agent(name)))
        found.append(Case("scripts", f"{name} / python -m course trace", trace(name)))
    return found
