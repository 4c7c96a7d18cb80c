"""Bad session files, read by `session info/tree/context` and resumed by `pi-agent -p`.

A base file is written by the real writer (every kind of entry, a branch), then broken in
one way per case: cut anywhere, bad JSON or UTF-8, lone surrogates, nesting thousands deep,
parent loops, wrong types, terminal escapes, NaN, huge lines, not a regular file… Session
commands must exit 0 or 2 (one `error:` line naming the file) and never change the file;
resuming must refuse with exit 2 leaving the file byte for byte as it was, or append after
its last byte, with every message that was readable before still readable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from hostile.checks import PLAIN_ENV, as_json, clean_cli, invoke, one_error_line
from hostile.runner import Case, Check

HEADER = {"type": "session", "version": 3, "id": "s-hostile", "timestamp":
          "2026-01-01T00:00:00.000Z", "cwd": "/work/app"}
Mutation = Callable[[bytes, Path], bytes]


def entry(entry_id: str, parent: str | None, **fields: object) -> dict[str, object]:
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z", **fields}


def said(entry_id: str, parent: str | None, text: object, role: str = "user") -> dict[str, object]:
    message: dict[str, object] = {"role": role, "content": text, "timestamp": 1767225601000}
    return entry(entry_id, parent, message=message)


def reply(entry_id: str, parent: str | None, text: str, usage: object = None) -> dict[str, object]:
    usage = usage or {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": 15, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                                  "cacheWrite": 0, "total": 0}}
    message = {"role": "assistant", "content": [{"type": "text", "text": text}],
               "api": "mock", "provider": "mock", "model": "mock-1", "usage": usage,
               "stopReason": "stop", "timestamp": 1767225601000}
    return entry(entry_id, parent, message=message)


def base_entries() -> list[dict[str, object]]:
    return [
        {"type": "model_change", "id": "e1", "parentId": None, "provider": "mock",
         "modelId": "mock-1", "timestamp": "2026-01-01T00:00:01.000Z"},
        said("e2", "e1", "Fix the bug in calc.py"),
        reply("e3", "e2", "Fixed."),
        said("e4", "e3", "Now add a test"),
        reply("e5", "e4", "Added."),
        {"type": "label", "id": "e6", "parentId": "e5", "targetId": "e2", "label": "start",
         "timestamp": "2026-01-01T00:00:02.000Z"},
        said("e7", "e3", "Another way"),  # a second branch from e3
        reply("e8", "e7", "Done differently."),
    ]


def lines_of(*items: object) -> bytes:
    return b"".join(json.dumps(item, ensure_ascii=False).encode() + b"\n" for item in items)


def base() -> bytes:
    return lines_of(HEADER, *base_entries())


def replace_text(old: str, new_json_fragment: str) -> Mutation:
    """Replace the JSON string `"old"` by a raw JSON fragment (escapes and all)."""
    return lambda data, _: data.replace(json.dumps(old).encode(), new_json_fragment.encode())


def append(*items: object) -> Mutation:
    return lambda data, _: data + lines_of(*items)


def append_raw(raw: bytes) -> Mutation:
    return lambda data, _: data + raw


def cut_at(fraction: float) -> Mutation:
    return lambda data, _: data[: int(len(data) * fraction)]


def whole(raw: bytes) -> Mutation:
    return lambda _data, _path: raw


def deep_custom(depth: int) -> Mutation:
    custom = {"type": "custom", "id": "c1", "parentId": "e8", "customType": "x",
              "timestamp": "2026-01-01T00:00:03.000Z"}
    line = json.dumps(custom)[:-1] + ', "data": ' + "[" * depth + "]" * depth + "}\n"
    return lambda data, _: data + line.encode()


def huge_message(size: int) -> Mutation:
    return append(said("big", "e8", "x" * size))


def long_chain(count: int, branching: bool) -> Mutation:
    """`count` entries in one chain, or each one a new branch (a tree `count` deep)."""
    def make(data: bytes, _: Path) -> bytes:
        items, parent = [], "e8"
        for number in range(count):
            items.append(said(f"n{number}", parent, f"step {number}"))
            if branching:
                items.append(said(f"m{number}", parent, "side"))
            parent = f"n{number}"
        return data + lines_of(*items)
    return make


MUTATIONS: dict[str, Mutation] = {
    **{f"cut at {p:.0%}": cut_at(p) for p in (0.0, 0.01, 0.05, 0.1, 0.25, 0.4, 0.5, 0.66,
                                              0.8, 0.95, 0.999)},
    "unfinished last line": lambda data, _: data[:-1],
    "bad JSON line in the middle": lambda data, _: data.replace(b'\n{"type": "message", "id": "e4"',
                                                                b'\n{"type": oops\n{"type": "message", "id": "e4"'),
    "bad JSON last line": append_raw(b'{"type": "message", "id": \n'),
    "invalid UTF-8 in a text": lambda data, _: data.replace(b"Fixed.", b"Fix\xff\xfeed."),
    "lone surrogate escape in a text": replace_text("Fixed.", '"Fix\\ud800ed."'),
    "lone low surrogate in a label": replace_text("start", '"st\\udfffart"'),
    "emoji halves in two messages": lambda data, _: data.replace(
        json.dumps("Fixed.").encode(), b'"half \\ud83d"').replace(
        json.dumps("Added.").encode(), b'"\\ude00 other half"'),
    "raw surrogate bytes (CESU-8)": lambda data, _: data.replace(b"Added.", b"Add\xed\xa0\x80ed."),
    "nesting 3000 deep": deep_custom(3000),
    "nesting 100000 deep": deep_custom(100_000),
    "parent loop of two": append(said("x1", "x2", "loop one"), said("x2", "x1", "loop two")),
    "parent loop of three": append(said("y1", "y3", "a"), said("y2", "y1", "b"),
                                   said("y3", "y2", "c")),
    "own parent": append(said("self", "self", "me")),
    "unknown parent": append(said("orphan", "nowhere", "lost?")),
    "duplicate id": append(said("e2", "e8", "again")),
    "unknown entry type": append({"type": "hologram", "id": "h1", "parentId": "e8",
                                  "timestamp": "2026-01-01T00:00:03.000Z"}),
    "unknown message role": append(said("r1", "e8", "hi", role="wizard")),
    "content is a number": append(said("n1", "e8", 12)),
    "content is null": append(said("n2", "e8", None)),
    "timestamp is a number": append({**said("t1", "e8", "x"), "timestamp": 5}),
    "id is a number": append({**said("i1", "e8", "x"), "id": 7}),
    "usage NaN": append_raw(json.dumps(reply("u1", "e8", "nan")).replace(
        '"input": 10', '"input": NaN').encode() + b"\n"),
    "usage Infinity": append_raw(json.dumps(reply("u2", "e8", "inf")).replace(
        '"input": 10', '"input": 1e400').encode() + b"\n"),
    "usage fractional": append(reply("u3", "e8", "frac", usage={
        "input": 12.5, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 13.5,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})),
    "usage is 12": append(reply("u4", "e8", "twelve", usage=12)),
    "terminal escapes in a text": replace_text("Fixed.", json.dumps(
        "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J done")),
    "terminal escapes in the session name": append(
        {"type": "session_info", "id": "si", "parentId": "e8", "name": "\x1b]0;title\x07",
         "timestamp": "2026-01-01T00:00:03.000Z"}),
    "terminal escapes in ids and cwd": lambda data, _: data.replace(
        b'"/work/app"', json.dumps("/w\x1b[31m\x07").encode()).replace(
        b'"e8"', json.dumps("e8\x1b]0;x\x07").encode()),
    "C1 control characters": replace_text("Added.", json.dumps("\x9b31m\x9d0;t\x07")),
    "NUL escaped in a text": replace_text("Added.", '"a\\u0000b"'),
    "raw NUL byte in a line": lambda data, _: data.replace(b"Added.", b"Add\x00ed."),
    "byte order mark": lambda data, _: b"\xef\xbb\xbf" + data,
    "CRLF line endings": lambda data, _: data.replace(b"\n", b"\r\n"),
    "blank lines between entries": lambda data, _: data.replace(b"\n", b"\n\n   \n"),
    "empty file": whole(b""),
    "only whitespace": whole(b"  \n\n"),
    "header only": lambda data, _: data.split(b"\n", 1)[0] + b"\n",
    "no header": lambda data, _: data.split(b"\n", 1)[1],
    "header version 99": lambda data, _: data.replace(b'"version": 3', b'"version": 99', 1),
    "header version is a string": lambda data, _: data.replace(b'"version": 3', b'"version": "3"', 1),
    "header without id": lambda data, _: data.replace(b'"id": "s-hostile", ', b"", 1),
    "a line that is an array": append_raw(b"[1, 2, 3]\n"),
    "a line that is a string": append_raw(b'"just text"\n'),
    "id 10,000 characters long": append(said("i" * 10_000, "e8", "long id")),
    "label for a missing entry": append({"type": "label", "id": "l9", "parentId": "e8",
                                         "targetId": "ghost", "label": "boo",
                                         "timestamp": "2026-01-01T00:00:03.000Z"}),
    "compaction keeping a missing entry": append(
        {"type": "compaction", "id": "k1", "parentId": "e8", "summary": "s",
         "firstKeptEntryId": "ghost", "tokensBefore": 100,
         "timestamp": "2026-01-01T00:00:03.000Z"}),
    "extra fields everywhere": lambda data, _: data.replace(b'"parentId"', b'"zz": [1], "parentId"'),
    **{f"{kind} at the time 'yesterday'": append({
        "type": kind, "id": "y1", "parentId": "e8", "timestamp": "yesterday", **fields})
       for kind, fields in (
           ("custom_message", {"customType": "x", "content": "hi", "display": True}),
           ("branch_summary", {"fromId": "e5", "summary": "elsewhere"}),
           ("compaction", {"summary": "s", "firstKeptEntryId": "e7", "tokensBefore": 5}))},
    "an integer of 5,000 digits in the header": lambda data, _: data.replace(
        b'"version": 3', b'"version": 3, "n": ' + b"9" * 5_000, 1),
    "an integer of 5,000 digits as a message time": append_raw(json.dumps(
        said("d1", "e8", "x")).replace("1767225601000", "9" * 5_000).encode() + b"\n"),
    "an integer of 5,000 digits in custom data": append_raw(
        b'{"type": "custom", "id": "d2", "parentId": "e8", "customType": "x", '
        b'"timestamp": "2026-01-01T00:00:03.000Z", "data": ' + b"9" * 5_000 + b"}\n"),
    "a v1 firstKeptEntryIndex of 5,000 digits": whole(
        b'{"type": "session", "id": "s", "timestamp": "t", "cwd": "/"}\n' + lines_of(
            {"type": "message", "timestamp": "t", "message": {
                "role": "user", "content": "hi", "timestamp": 1}})
        + b'{"type": "compaction", "timestamp": "t", "summary": "s", "tokensBefore": 5, '
          b'"firstKeptEntryIndex": ' + b"9" * 5_000 + b"}\n"),
    "a 5 MB message": huge_message(5_000_000),
    "5,000 entries in one chain": long_chain(5000, branching=False),
    "a tree 1,500 branches deep": long_chain(1500, branching=True),
}

SPECIAL_FILES = ("a folder", "a FIFO", "a link to /dev/zero", "a link loop", "missing")


def place(check: Check, name: str) -> Path:
    """The session file of a case; for SPECIAL_FILES, not a regular file at all."""
    path = check.root / "session.jsonl"
    if name == "a folder":
        path.mkdir()
    elif name == "a FIFO":
        os.mkfifo(path)
    elif name == "a link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif name == "a link loop":
        path.symlink_to(path)
    elif name != "missing":
        path.write_bytes(MUTATIONS[name](base(), path))
    return path


def real_path(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return str(path)


def contents(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


def readable_messages(path: Path) -> list[str] | None:
    """The JSON of every message entry the reader accepts, or None if the file is refused."""
    from pi.ai.messages import dump_message
    from pi.coding_agent.session.entries import MessageEntry, SessionError
    from pi.coding_agent.session.reader import read_session
    try:
        session = read_session(path)
    except (SessionError, RecursionError):
        return None
    return [as_json(dump_message(entry.message)) for entry in session.entries
            if isinstance(entry, MessageEntry)]


def every_entry_shown(check: Check, path: Path, out: str) -> None:
    """`session tree` leaves out no entry: not one in a loop of parents, not one at all."""
    from pi.coding_agent.session.reader import read_session
    from pi.coding_agent.session.show import printable
    ids = [entry.id for entry in read_session(path).entries]
    missing = [entry_id for entry_id in ids if printable(entry_id)[:40] not in out]
    if missing:
        check.lost(f"session tree leaves out {len(missing)} entries, e.g. {missing[0][:40]!r}")


def session_command(name: str, args: list[str]) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from course.session_cli import session_app
        path = place(check, name)
        before = contents(path)
        code, out, err, escaped = invoke(session_app, [*args, str(path)])
        where = " ".join(args)
        clean_cli(check, where, code, out, err, escaped, allowed=(0, 2))
        if code == 2:
            one_error_line(check, where, err, str(path))
        if contents(path) != before:
            check.lost(f"{where} changed the file it only reads")
        if args == ["tree"] and code == 0:
            every_entry_shown(check, path, out)
        if "--json" in args and code == 0:
            try:
                json.loads(out)
            except ValueError as error:
                check.crash(f"{where}: the output is not JSON ({error})")
    return run


def resume(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.modes.main import app
        path = place(check, name)
        before = contents(path)
        readable_before = readable_messages(path) if before is not None else None
        script = check.root / "script.json"
        script.write_text(json.dumps({"turns": [{"text": "carried on"}] * 3}))
        (check.root / "work").mkdir()
        code, out, err, escaped = invoke(app, [
            "-p", "go on", "--script", str(script), "--session", str(path),
            "--cwd", str(check.root / "work"), "--agent-dir", str(check.root / "agent")],
            env=PLAIN_ENV)
        clean_cli(check, "resume", code, out, err, escaped, allowed=(0, 1, 2))
        after = contents(path)
        if code == 2:  # refused before anything ran: the file is as it was
            one_error_line(check, "resume", err, str(path), real_path(path))
            if after != before:
                check.lost("a refused resume changed the file")
            return
        if before is not None and (after is None or not after.startswith(before)):
            check.lost("resuming rewrote bytes that were already in the file")
            return
        readable_after = readable_messages(path)
        if readable_after is None:
            check.lost("after resuming, the file no longer opens")
        elif readable_before and readable_after[: len(readable_before)] != readable_before:
            check.lost("a message readable before resuming is no longer readable")
    return run


COMMANDS = {"info": ["info"], "tree": ["tree"], "context": ["context"]}


def cases() -> list[Case]:
    found = []
    for name in [*MUTATIONS, *SPECIAL_FILES]:
        for label, args in COMMANDS.items():
            found.append(Case("sessions", f"{name} / session {label}", session_command(name, args)))
        found.append(Case("sessions", f"{name} / resume with pi-agent -p", resume(name)))
    return found
