"""Part 6 of the differential suite: the system prompt's sections, Pi's and the course's.

Generated configurations vary the enabled tools (any of read, bash, edit, write, plus custom
tools with a line, guidelines, both or neither; one named `ls`, which makes bash's search rule
go away in Pi), a SYSTEM.md, an APPEND_SYSTEM.md, AGENTS.md files, skills (hidden ones,
characters XML must escape) and the working directory. The sentences are the course's own, so
what must agree is everything else: the sections and their order, which tools are listed, how
many rules there are and where a custom tool's guidelines fall among them, the project
instructions after their first line, the skills catalog from `<available_skills>` on, which
tool the catalog tells the model to open files with, and the text of every other section.
Pi's `docs` section (where Pi's own documentation lives) is a divergence and left out.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from differential import first_difference, run_node

CUSTOM_TOOLS = (
    {"name": "deploy", "snippet": "deploy the\n  current branch",
     "guidelines": ["Deploy only after the tests pass", "  Write notes in Markdown  "]},
    {"name": "notes", "snippet": "", "guidelines": ["Write notes in Markdown", ""]},
    {"name": "quiet", "snippet": "", "guidelines": []},
    {"name": "ls", "snippet": "list a folder", "guidelines": []},
)
TEXTS = ("Run make test before you finish.", "Ünïcödé & <tags> \"quoted\" 'single'",
         "line one\nline two\n\nafter a blank line", "   padded   ")


def skill(number: int, rng: random.Random) -> dict[str, Any]:
    folder = f"/skills/s{number}-{rng.choice(('a', '<b>', 'c&d'))}"
    return {"name": f"s{number}", "description": rng.choice(TEXTS).strip() or "x",
            "filePath": f"{folder}/SKILL.md", "baseDir": folder,
            "disableModelInvocation": rng.random() < 0.25}


def configuration(rng: random.Random) -> dict[str, Any]:
    builtins = [{"name": n} for n in ("read", "bash", "edit", "write") if rng.random() < 0.7]
    customs = [{**t, "custom": True} for t in CUSTOM_TOOLS if rng.random() < 0.3]
    tools = builtins + customs
    rng.shuffle(tools)
    return {
        "tools": tools,
        "cwd": rng.choice(("/home/user/project", "/w/with space", "C:\\work\\repo")),
        "customPrompt": rng.choice(TEXTS) if rng.random() < 0.2 else None,
        "append": rng.choice(TEXTS) if rng.random() < 0.3 else None,
        "contextFiles": [{"path": f"/repo/{'sub/' * n}AGENTS.md", "content": rng.choice(TEXTS)}
                         for n in range(rng.choice((0, 0, 1, 2)))],
        "skills": [skill(n, rng) for n in range(rng.choice((0, 1, 3)))],
    }


def course_sections(case: dict[str, Any]) -> dict[str, str]:
    from pi.coding_agent.resources.context_files import ContextFile
    from pi.coding_agent.resources.skills import Skill
    from pi.coding_agent.resources.system_prompt import system_prompt_sections, tool_prompts_for

    class Tool:
        def __init__(self, spec: dict[str, Any]) -> None:
            self.name, self.prompt_snippet = spec["name"], spec.get("snippet")
            self.prompt_guidelines = spec.get("guidelines", [])

    customs = [Tool(t) for t in case["tools"] if t.get("custom")]
    skills = [Skill(name=s["name"], description=s["description"], file_path=Path(s["filePath"]),
                    base_dir=Path(s["baseDir"]), source="test",
                    disable_model_invocation=s["disableModelInvocation"])
              for s in case["skills"]]
    return system_prompt_sections(
        tool_names=[t["name"] for t in case["tools"]], cwd=Path(case["cwd"]),
        custom_prompt=case["customPrompt"], append=case["append"],
        context_files=[ContextFile(Path(f["path"]), f["content"]) for f in case["contextFiles"]],
        skills=skills, tool_prompts=tool_prompts_for(customs))  # type: ignore[arg-type]


def inner(section: str) -> str:
    return section.split("\n", 1)[1].rsplit("\n", 1)[0]


def comparable(sections: dict[str, str], case: dict[str, Any]) -> dict[str, Any]:
    """What both sides must agree on, with the sentences each words its own way set aside."""
    given = {g.strip() for t in case["tools"] if t.get("custom") for g in t["guidelines"]}
    shown: dict[str, Any] = {"names": [n for n in sections if n != "docs"]}
    for name, text in sections.items():
        body = inner(text) if name != "preamble" else text
        if name == "tools":
            shown[name] = [line.split(":")[0] for line in body.splitlines() if line[:2] == "- "]
        elif name == "rules":  # a custom tool's guideline is the same text on both sides
            shown[name] = [r[2:] if r[2:] in given else "(own words)" for r in body.splitlines()]
        elif name == "project_context":
            shown[name] = body.split("\n", 1)[1]
        elif name == "skills":
            opener = "read tool" if "read tool" in body else "bash" if "bash" in body else None
            shown[name] = (opener, body[body.index("<available_skills>"):])
        elif name == "preamble":
            shown[name] = text if case["customPrompt"] else "(own words)"
        elif name != "docs":
            shown[name] = body
    return shown


def prompt_sections(modules: Path, work: Path, seed: int, count: int = 300
                    ) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    cases = [configuration(rng) for _ in range(count)]
    file = work / "prompt-cases.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    theirs = json.loads(run_node("prompt_check.mjs", str(file), modules=modules))
    problems = []
    for number, (case, pi_sections) in enumerate(zip(cases, theirs, strict=True)):
        found = first_difference(comparable(course_sections(case), case),
                                 comparable(pi_sections, case))
        if found:
            problems.append(f"prompt seed {seed} case {number}: {found} for "
                            f"{json.dumps(case)[:300]}")
    return count, problems
