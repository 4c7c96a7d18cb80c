"""Part 7 of the differential suite: Pi's read, edit, write and bash tools and the course's.

Each generated case runs in a scratch folder of its own on each side: files of short lines (LF,
CRLF, and some with every line ending mixed, lone CRs too; with or without a byte-order mark or
a last newline), then one call. `edit` gets one to three replacements drawn from the cases that
matter: text found once, found twice, not there, empty, a replacement that changes nothing,
overlapping spans, several lines at once. `write` creates and overwrites; `read` pages with
offset and limit; `bash` runs short commands that print, fail or are killed, and now and then a
slow one that its timeout or an abort stops. What must agree: success or failure, the text the
model reads (or the error message), every file afterwards, an edit's first changed line and the
counts of a cut output (`details.truncation` without the kept text). Left out on purpose
(divergence 16): Pi's fuzzy match, for an old text that differs from the file only in trailing
spaces, typographic quotes or dashes (the generator writes none of those), and the drawing in
Pi's `details.diff`.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from differential import first_difference, run_node

WORDS = ("alpha", "beta", "gamma", "delta", "pi", "sum = a + b", "return x", "", "# note")


def file_text(rng: random.Random, mixed: bool = False) -> str:
    lines = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
    ending = "\r\n" if rng.random() < 0.25 else "\n"
    endings = [rng.choice(("\n", "\r\n", "\r")) if mixed else ending for _ in lines]
    text = "".join(line + end for line, end in zip(lines, endings, strict=True))
    text = text if rng.random() < 0.7 else text.removesuffix(endings[-1])
    return ("\ufeff" if rng.random() < 0.15 else "") + text


def old_text(rng: random.Random, text: str) -> str:
    body = text.removeprefix("\ufeff").replace("\r\n", "\n")
    kind = rng.choice(("line", "line", "span", "word", "missing", "empty"))
    lines = [line for line in body.split("\n") if line]
    if kind == "missing" or not lines:
        return "zzz not in the file"
    if kind == "empty":
        return ""
    if kind == "span" and len(lines) > 1:
        start = rng.randrange(len(lines) - 1)
        return "\n".join(lines[start:start + 2])
    line = rng.choice(lines)
    return line.split(" ")[0] if kind == "word" else line


def edit_case(rng: random.Random) -> dict[str, Any]:
    text = file_text(rng, mixed=rng.random() < 0.2)
    edits = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        old = old_text(rng, text)
        new = old if rng.random() < 0.1 else rng.choice(("ALPHA", "x\ny", "", "return y", old))
        edits.append({"oldText": old, "newText": new})
    return {"tool": "edit", "files": {"f.txt": text}, "args": {"path": "f.txt", "edits": edits}}


def write_case(rng: random.Random) -> dict[str, Any]:
    files = {"old.txt": file_text(rng)} if rng.random() < 0.5 else {}
    path = rng.choice(("old.txt", "new.txt", "sub/dir/new.txt"))
    return {"tool": "write", "files": files, "args": {"path": path, "content": file_text(rng)}}


def read_case(rng: random.Random) -> dict[str, Any]:
    count = rng.choice((rng.randint(0, 40), rng.randint(1995, 2005)))
    text = "\n".join(f"line {n}" for n in range(1, count + 1)) + rng.choice(("", "\n"))
    args: dict[str, Any] = {"path": "r.txt"}
    if rng.random() < 0.6:
        args["offset"] = rng.randint(1, 45)
    if rng.random() < 0.5:
        args["limit"] = rng.randint(1, 10)
    return {"tool": "read", "files": {"r.txt": text}, "args": args}


COMMANDS = ("echo hi", "printf 'a\\nb'", "true", "exit 3", "echo out; echo err >&2; exit 1",
            "echo before; kill -9 $$", "printf ''", "cat r.txt", "ls", "seq 1 5 | tail -n 2",
            "seq 1 3000", "seq 1 2000", "seq 1 2001", "printf 'a\\n\\n'", "seq 1 2500; exit 2",
            "seq 1 1000 | sed 's/$/ xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/'"
            " | sed 's/x/yy/g'", "head -c 60000 /dev/zero | tr '\\0' x")
LOG = re.compile(r"Full output: [^\]]+\]")  # each side names its own log file


def comparable(outcome: dict[str, Any]) -> dict[str, Any]:
    return {key: LOG.sub("Full output: <log>]", value) if isinstance(value, str) else value
            for key, value in outcome.items()}


SLOW = ("echo start; sleep 3", "sleep 3", "printf 'a\\nb'; sleep 3; echo never", "echo quick")


def bash_case(rng: random.Random) -> dict[str, Any]:
    """A short command; now and then a slow one, stopped by its timeout or by an abort."""
    case: dict[str, Any] = {"tool": "bash", "files": {"r.txt": "x\ny"},
                            "args": {"command": rng.choice(COMMANDS)}}
    if rng.random() < 0.15:
        case["args"] = {"command": rng.choice(SLOW), "timeout": rng.choice((0.5, 1, 5))}
    elif rng.random() < 0.12:
        case["args"], case["abortAfter"] = {"command": rng.choice(SLOW)}, 0.5
    return case


async def execute(tool: Any, params: Any, abort_after: float | None) -> Any:
    """Run one call; with `abort_after`, abort it after that many seconds (Pi's
    `AbortSignal.timeout`)."""
    from pi.ai import AbortController

    controller = AbortController()
    if abort_after is not None:
        asyncio.get_running_loop().call_later(abort_after, controller.abort)
    return await tool.execute("call", params, controller.signal, lambda _: None)


def course_outcome(case: dict[str, Any]) -> dict[str, Any]:
    from pi.ai import TextContent
    from pi.coding_agent.tools.sets import coding_tools
    from pi.coding_agent.tools.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="course-tools-") as scratch:
        root, logs = Path(scratch) / "work", Path(scratch) / "logs"
        root.mkdir(), logs.mkdir()
        for name, text in case["files"].items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(text.encode("utf-8"))
        tool = next(t for t in coding_tools(Workspace(root), logs) if t.name == case["tool"])
        try:
            params = tool.parameters.model_validate(case["args"])
            result = asyncio.run(execute(tool, params, case.get("abortAfter")))
            outcome: dict[str, Any] = {"ok": True, "text": "".join(
                b.text for b in result.content if isinstance(b, TextContent))}
            for key in ("firstChangedLine", "truncation"):
                if result.details and key in result.details:
                    outcome[key] = result.details[key]
        except Exception as error:  # a tool's failure is its message, as in Pi
            outcome = {"ok": False, "error": str(error)}
        outcome["files"] = {p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8")
                            for p in sorted(root.rglob("*")) if p.is_file()}
    return outcome


def tool_calls(modules: Path, work: Path, seed: int, count: int = 300) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    makers = (edit_case, edit_case, edit_case, write_case, read_case, bash_case)
    cases = [rng.choice(makers)(rng) for _ in range(count)]
    file = work / "tool-cases.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    scratch = work / "pi-tools"
    scratch.mkdir()
    theirs = json.loads(run_node("tools_check.mjs", str(file), str(scratch), modules=modules))
    problems = []
    for number, (case, pi_did) in enumerate(zip(cases, theirs, strict=True)):
        found = first_difference(comparable(course_outcome(case)), comparable(pi_did))
        if found:
            problems.append(f"tools seed {seed} case {number}: {found} for "
                            f"{json.dumps(case)[:300]}")
    return count, problems
