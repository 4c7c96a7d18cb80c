"""Pi 1.x's new session entries, written by Pi's SessionManager and read by the course.

    python shared/pi_oracle/pi16_probe.py      # against shared/pi_oracle/pi16 (Pi 1.6)

trees.py generates these entries at random under `--pin pi16`; this plays a few hand-written
operation lists with what 1.x adds (system messages with sections/toolsAdded/toolsRemoved, a
`usage` entry, `context_edit` entries, a compaction that carries `systemMessage`, a
retain-none compaction) through oracle.mjs and prints, for each, what the course reads
differently (or its refusal).
Findings: PI16-FINDINGS.md. Exit status 0 whatever it finds: it reports, it does not gate.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import differential
from differential import first_difference, run_node, without_nulls

T = 1_767_225_600_000
ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
READ = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
WRITE = {"name": "write", "description": "Write a file", "parameters": {"type": "object"}}


def msg(message: dict[str, Any]) -> dict[str, Any]:
    return {"op": "message", "message": message}


def user(text: str, at: int) -> dict[str, Any]:
    return msg({"role": "user", "content": text, "timestamp": T + at})


def assistant(text: str, at: int) -> dict[str, Any]:
    return msg({"role": "assistant", "content": [{"type": "text", "text": text}], "api": "x",
                "provider": "p", "model": "m", "usage": {**ZERO, "input": 10, "totalTokens": 10},
                "stopReason": "stop", "timestamp": T + at})


def system(at: int, **fields: Any) -> dict[str, Any]:
    return msg({"role": "system", "content": "", **fields, "timestamp": T + at})


def compaction(first_kept: int | None) -> dict[str, Any]:
    return {"op": "compaction", "summary": "Summary of earlier work.", "firstKept": first_kept,
            "tokensBefore": 1234, "details": None, "fromHook": False}


CASES: dict[str, list[dict[str, Any]]] = {
    "system messages (sections, toolsAdded, toolsRemoved)": [
        system(0, sections={"preamble": "You are Pi.", "cwd": "/work"}, toolsAdded=[READ, WRITE]),
        user("hello", 1), assistant("hi", 2),
        system(3, sections={"skills": "<skills>x</skills>", "cwd": None},
               toolsRemoved=[{"name": "write"}]),
        user("again", 4), assistant("done", 5)],
    "usage entry": [
        user("hello", 1), assistant("hi", 2),
        {"op": "usage", "kind": "cache_warm", "provider": "p", "model": "m",
         "usage": {**ZERO, "cacheRead": 500, "totalTokens": 500}},
        user("again", 4), assistant("done", 5)],
    "context_edit (omit a user message, replace an assistant's text)": [
        user("secret", 1), assistant("long answer", 2), user("next", 3), assistant("ok", 4),
        {"op": "context_edit", "target": 0, "replacement": None},
        {"op": "context_edit", "target": 1, "replacement": {"content": "short"}}],
    "compaction with systemMessage": [
        system(0, sections={"preamble": "You are Pi."}, toolsAdded=[READ]),
        user("one", 1), assistant("a", 2), user("two", 3), assistant("b", 4),
        compaction(3), user("three", 5), assistant("c", 6)],
    "retain-none compaction (firstKeptEntryId = its own id)": [
        user("one", 1), assistant("a", 2), compaction(None), user("two", 3), assistant("b", 4)],
}


def main() -> int:
    differential.PIN = differential.HERE / "pi16"
    sys.path[:0] = [str(differential.latest_checkpoint()), str(differential.ROOT)]
    from trees import KEEPS, course_facts

    modules = differential.pi_modules()
    with tempfile.TemporaryDirectory(prefix="pi16-probe-") as temp:
        work = Path(temp)
        names = list(CASES)
        request = {"keeps": list(KEEPS), "read": [], "write": [
            {"seed": i, "dir": str(work / str(i)), "ops": CASES[name]}
            for i, name in enumerate(names)]}
        (work / "request.json").write_text(json.dumps(request))
        answer = json.loads(run_node("oracle.mjs", str(work / "request.json"), modules=modules))
        for written in answer["written"]:
            name, file = names[written["seed"]], written["file"]
            lines = Path(file).read_text().splitlines()[1:]
            print(f"== {name}\n   Pi wrote: " + "\n             ".join(
                line[:220] for line in lines if '"type":"message"' not in line
                or '"role":"system"' in line))
            theirs = answer["read"][file]
            try:
                ours: Any = course_facts(Path(file))
            except Exception as error:
                print(f"   course refused: {type(error).__name__}: {str(error)[:300]}")
                continue
            found = first_difference(without_nulls(ours), without_nulls(theirs))
            print(f"   first difference: {found}" if found else "   course reads it as Pi does")
            for leaf, facts in theirs.get("leaves", {}).items():
                mine = ours.get("leaves", {}).get(leaf, {})
                course_prep = {str(k): v for k, v in mine.get("prepare", {}).items()}.get("200")
                for key in ("messages", "llm"):
                    print(f"   leaf {leaf} {key} roles: Pi {[m['role'] for m in facts[key]]}, "
                          f"course {[m['role'] for m in mine.get(key, [])]}")
                print(f"   leaf {leaf} estimates: Pi {facts['estimates']}, "
                      f"course {mine.get('estimates')}; prepare(keep 200) is "
                      f"{'none' if facts['prepare']['200'] is None else 'a preparation'} in Pi, "
                      f"{'none' if course_prep is None else 'a preparation'}"
                      " in the course")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
