"""Bad lines on the stdin of `pi-agent --mode rpc`.

Each case sends one bad line, then `get_state`: the bad line gets its one response (none for
a blank line, as in Pi), the server answers the next command, every line it writes is strict
JSON, and it exits 0 when stdin ends. A prompt holding half an emoji must be stored in a
session file that opens again, and `export_html` onto a session file or onto what is no file
(a FIFO, a folder, a device) gets one error and leaves it as it was. The cases run in-process (the real stdin bytes through the
real reader); one more case sends all the lines at once to the real command through pipes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile.checks import PLAIN_ENV, invoke, plain
from hostile.runner import Case, Check

AFTER = b'{"type": "get_state", "id": "after"}\n'
DEEP = 100_000

LINES: dict[str, tuple[bytes, int]] = {  # the line, and how many responses it gets
    "invalid UTF-8": (b"\xff\xfe garbage\n", 1),
    "invalid UTF-8 inside a string": (b'{"type": "get_state", "id": "\xff"}\n', 1),
    "overlong UTF-8": (b'{"type": "get_state", "id": "\xc0\xaf"}\n', 1),
    "surrogate bytes (CESU-8)": (b'{"type": "get_state", "id": "\xed\xa0\x80"}\n', 1),
    "id 1e400": (b'{"type": "get_state", "id": 1e400}\n', 1),
    "id -1e400": (b'{"type": "get_state", "id": -1e400}\n', 1),
    "id NaN": (b'{"type": "get_state", "id": NaN}\n', 1),
    "id Infinity": (b'{"type": "get_state", "id": Infinity}\n', 1),
    "id a lone surrogate": (b'{"type": "get_state", "id": "\\ud800"}\n', 1),
    "id 10**400": (b'{"type": "get_state", "id": 1' + b"0" * 400 + b"}\n", 1),
    "id an object": (b'{"type": "get_state", "id": {"a": [1]}}\n', 1),
    "id null": (b'{"type": "get_state", "id": null}\n', 1),
    "a 100,000-deep array": (b"[" * DEEP + b"]" * DEEP + b"\n", 1),
    "a 100,000-deep object": (b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"\n", 1),
    "a 100,000-deep id": (b'{"type": "get_state", "id": ' + b"[" * DEEP + b"]" * DEEP
                          + b"}\n", 1),
    "not JSON": (b"hello there\n", 1),
    "half a JSON object": (b'{"type": "get_st\n', 1),
    "an empty object": (b"{}\n", 1),
    "type a number": (b'{"type": 5, "id": "t"}\n', 1),
    "type a lone surrogate": (b'{"type": "\\udfff", "id": "t"}\n', 1),
    "type with terminal escapes": (b'{"type": "\\u001b]0;x\\u0007", "id": "t"}\n', 1),
    "unknown type": (b'{"type": "format_disk", "id": "t"}\n', 1),
    "a JSON array": (b"[1, 2]\n", 1),
    "a JSON string": (b'"get_state"\n', 1),
    "a JSON number": (b"12\n", 1),
    "null": (b"null\n", 1),
    "duplicate keys": (b'{"type": "get_state", "type": "get_state", "id": "d"}\n', 1),
    "a byte order mark": (b'\xef\xbb\xbf{"type": "get_state", "id": "b"}\n', 1),
    "CRLF": (b'{"type": "get_state", "id": "c"}\r\n', 1),
    "a raw NUL byte": (b'{"type": "get_state", "id": "n\x00"}\n', 1),
    "a blank line": (b"   \n", 0),
    "a 10 MB line": (b'{"type": "get_state", "id": "' + b"x" * 10_000_000 + b'"}\n', 1),
    "prompt message a number": (b'{"type": "prompt", "id": "p", "message": 5}\n', 1),
    "prompt message null": (b'{"type": "prompt", "id": "p", "message": null}\n', 1),
    "an answer to no question": (b'{"type": "extension_ui_response", "id": [1]}\n', 0),
}


def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def script(check: Check) -> Path:
    path = check.root / "script.json"
    path.write_text(json.dumps({"turns": [{"text": "answered"}] * 4}))
    (check.root / "work").mkdir(exist_ok=True)
    return path


def arguments(check: Check) -> list[str]:
    return ["--mode", "rpc", "--script", str(script(check)), "--cwd", str(check.root / "work"),
            "--session", str(check.root / "s.jsonl"), "--agent-dir", str(check.root / "agent")]


def responses(check: Check, out: str) -> list[dict[str, Any]]:
    found = []
    for line in out.splitlines():
        try:
            data = strict_json(line)
        except ValueError as error:
            check.crash(f"the server wrote a line that is not JSON ({error}): {line[:120]!r}")
            continue
        if isinstance(data, dict) and data.get("type") == "response":
            found.append(data)
    return found


def line_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.modes.main import app
        line, expected = LINES[name]
        code, out, err, escaped = invoke(app, arguments(check), stdin=line + AFTER)  # type: ignore[arg-type]
        if escaped is not None:
            check.crash(f"{type(escaped).__name__}: {str(escaped)[:200]}")
            return
        if code != 0:
            check.crash(f"exit code {code}: {err[:200]!r}")
        plain(check, "stderr", [err])
        answers = responses(check, out)
        after = [a for a in answers if a.get("id") == "after"]
        if len(after) != 1 or not after[0].get("success"):
            check.crash("the command after the bad line was not answered")
        if len(answers) - len(after) != expected:
            check.crash(f"{len(answers) - len(after)} responses to the bad line, not {expected}")
    return run


def surrogate_prompt(check: Check) -> None:
    """A prompt holding half an emoji is answered and stored in a file that opens again."""
    from pi.coding_agent.session.reader import read_session
    from pi.modes.main import app
    prompt = b'{"type": "prompt", "id": "p", "message": "half \\ud83d here"}\n'
    state = b'{"type": "get_messages", "id": "after"}\n'
    code, out, err, escaped = invoke(app, arguments(check), stdin=prompt + state)  # type: ignore[arg-type]
    if escaped is not None or code != 0:
        check.crash(f"exit {code}: {escaped or err[:200]!r}")
        return
    responses(check, out)
    session = read_session(check.root / "s.jsonl")
    said = [e.message.content for e in session.entries if getattr(e, "message", None)
            and e.message.role == "user"]
    if said != ["half \ud83d here"]:
        check.lost(f"the prompt did not read back from the session file: {said!r}")


OTHER_SESSION = b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'
EXPORTS = {  # what waits at outputPath (under the case's folder)
    "this session's file": "s.jsonl", "another session file": "old.jsonl", "a FIFO": "fifo",
    "a folder": "work", "/dev/null": "/dev/null"}


def export_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.coding_agent.session.entries import SessionError
        from pi.coding_agent.session.reader import read_session
        from pi.modes.main import app
        args = arguments(check)  # makes the folder `work`
        other = check.root / "old.jsonl"
        other.write_bytes(OTHER_SESSION)
        os.mkfifo(check.root / "fifo")
        line = json.dumps({"type": "export_html", "id": "e",
                           "outputPath": str(check.root / EXPORTS[name])})
        code, out, err, escaped = invoke(app, args, stdin=line.encode() + b"\n" + AFTER)  # type: ignore[arg-type]
        if escaped is not None or code != 0:
            check.crash(f"exit {code}: {escaped or err[:200]!r}")
            return
        answer = [a for a in responses(check, out) if a.get("id") == "e"]
        if len(answer) != 1 or answer[0].get("success") or "\n" in str(answer[0].get("error")):
            check.crash(f"not one refusal in one line: {answer!r}"[:300])
        plain(check, "the refusal", [str(a.get("error")) for a in answer])
        try:
            read_session(check.root / "s.jsonl")
        except SessionError as error:
            check.lost(f"the session file no longer opens: {error}"[:300])
        if other.read_bytes() != OTHER_SESSION:
            check.lost("another session file was rewritten by an export")
    return run


def through_pipes(check: Check) -> None:
    """All the lines at once, to the real command through real pipes."""
    from hostile import SOURCE
    lines = [line for line, _ in LINES.values() if len(line) < 1_000_000]
    expected = sum(count for line, count in LINES.values() if len(line) < 1_000_000)
    env = {k: v for k, v in {**__import__("os").environ, **PLAIN_ENV}.items() if v is not None}
    env["PYTHONPATH"] = str(SOURCE)
    done = subprocess.run([sys.executable, "-m", "pi.modes.main", *arguments(check)],
                          input=b"".join(lines) + AFTER, capture_output=True, timeout=60,
                          env=env, cwd=check.root)
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        check.crash(f"exit code {done.returncode}: {err[:300]!r}")
    plain(check, "stderr", [err])
    answers = responses(check, out)
    if len(answers) != expected + 1 or answers[-1].get("id") != "after":
        check.crash(f"{len(answers)} responses to {expected + 1} commands")


def cases() -> list[Case]:
    found = [Case("rpc", name, line_case(name)) for name in LINES]
    found.append(Case("rpc", "a prompt holding half an emoji", surrogate_prompt))
    found += [Case("rpc", f"export_html onto {name}", export_case(name)) for name in EXPORTS]
    found.append(Case("rpc", "every bad line at once, through real pipes", through_pipes,
                      deadline=60))
    return found
