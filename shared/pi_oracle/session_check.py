"""Part 8 of the differential suite: the system messages a session records, Pi's and the course's.

Pi 1.6 keeps the prompt and the tools in the transcript: before a run, a session records a
system message declaring what the transcript does not say yet. Generated cases give a project
and an agent folder some of `AGENTS.md`, `CLAUDE.md`, `SYSTEM.md` and `APPEND_SYSTEM.md`, then
run steps: a prompt, a file written, changed or removed, a reopening of the session (Pi's
`createAgentSession` on the same file; the course's `Runtime`). The model's replies are
scripted. What must agree: the roles of the recorded messages in order, and for every system
message the sections it declares (names in order, and which are removed) and the tools it adds
and removes. The sections' sentences are each side's own (part 6 compares them); Pi's `docs`
section is divergence 15 and left out.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from differential import first_difference, run_node

FILES = ("project/AGENTS.md", "project/CLAUDE.md", "agent/AGENTS.md", "agent/SYSTEM.md",
         "agent/APPEND_SYSTEM.md")
TEXTS = ("Use tabs.", "Run the tests first.", "Ünïcödé & <tags>", "line one\nline two")


def case(rng: random.Random) -> dict[str, Any]:
    files = {name: rng.choice(TEXTS) for name in FILES if rng.random() < 0.3}
    steps: list[Any] = ["prompt"]
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(("prompt", "prompt", "write", "reopen"))
        if kind == "write":
            steps.append({"write": {rng.choice(FILES): rng.choice(("", *TEXTS))}})
        else:
            steps.append(kind)
    return {"files": files, "steps": [*steps, "reopen", "prompt"]}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        if text == "":
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))


def course_messages(the_case: dict[str, Any], folder: Path) -> list[dict[str, Any]]:
    from mock_model import MockModel, text, turn
    from pi.ai import MockProvider, Model, Providers
    from pi.coding_agent.runtime.config import RuntimeConfig
    from pi.coding_agent.runtime.runtime import Runtime
    from pi.coding_agent.session.entries import fixed_clock, sequential_ids

    (folder / "project").mkdir(parents=True)
    (folder / "agent").mkdir()
    write(folder, the_case["files"])
    prompts = sum(step == "prompt" for step in the_case["steps"])
    mock = MockModel([turn(text("ok")) for _ in range(prompts)])
    config = RuntimeConfig(cwd=folder / "project", agent_dir=folder / "agent",
                           providers=Providers({"mock": MockProvider(mock)}),
                           model=Model(id="mock-1", api="mock", provider="mock"),
                           session_file=folder / "session.jsonl", clock=fixed_clock(0),
                           ids=sequential_ids())
    runtime = Runtime(config)
    for step in the_case["steps"]:
        if step == "prompt":
            asyncio.run(runtime.prompt("prompt"))
        elif step == "reopen":
            asyncio.run(runtime.close())
            runtime = Runtime(config)
        else:
            write(folder, step["write"])
    asyncio.run(runtime.close())
    lines = (folder / "session.jsonl").read_text(encoding="utf-8").splitlines()
    return [entry["message"] for entry in map(json.loads, lines) if entry["type"] == "message"]


def comparable(messages: list[dict[str, Any]]) -> list[Any]:
    """Each message's role; a system message also with what it declares (no `docs`)."""
    shown: list[Any] = []
    for message in messages:
        if message["role"] != "system":
            shown.append(message["role"])
            continue
        sections = {name: text is not None for name, text in (message.get("sections") or {}).items()
                    if name != "docs"}
        shown.append({"sections": list(sections.items()),
                      "added": [tool["name"] for tool in message.get("toolsAdded") or []],
                      "removed": [tool["name"] for tool in message.get("toolsRemoved") or []]})
    return shown


def session_prompts(modules: Path, work: Path, seed: int, count: int = 60
                    ) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    cases = [case(rng) for _ in range(count)]
    file = work / "session-cases.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    scratch = work / "pi-sessions"
    scratch.mkdir()
    theirs = json.loads(run_node("session_check.mjs", str(file), str(scratch), modules=modules))
    problems = []
    for number, (the_case, pi_messages) in enumerate(zip(cases, theirs, strict=True)):
        ours = course_messages(the_case, work / "course-sessions" / f"case-{number}")
        found = first_difference(comparable(ours), comparable(pi_messages))
        if found:
            problems.append(f"sessions seed {seed} case {number}: {found} for "
                            f"{json.dumps(the_case)[:300]}")
    return count, problems
