"""Part 3 of the differential suite: Pi's skill loader and the course's on generated folders.

Each generated root holds a few skills whose frontmatter is drawn from the cases that matter:
names that break each naming rule, names that are not text (numbers, booleans, lists) or are
falsy (then the folder's name is used), descriptions missing, blank, multi-line or past 1024
UTF-16 units (emoji count two), repeated keys, broken YAML, no frontmatter at all, CRLF line
endings, unknown fields, nested and grouping folders and loose `.md` files at the root.
Messages are compared where both sides word them by the Agent Skills rules; a YAML parser's
own error text (and JavaScript's TypeError text) is not ours to copy, so there only the
number, kind and file of the diagnostics must agree.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from differential import first_difference, run_node

RULES = re.compile(r'name ".*" does not match parent directory|name exceeds \d+ characters|'
                   r"name contains invalid characters|name must not|description is required$|"
                   r"description exceeds \d+ characters", re.DOTALL)  # worded exactly as Pi
NAMES = ("{dir}", "{dir}", "{dir}", "Other-Name", "bad_name", "-lead", "trail-", "dou--ble",
         "x" * 65, "a" * 63 + "\U0001F600", "123", "true", "false", "0", "''", "[a, b]",
         "{dir}-mismatch")
DESCRIPTIONS = ("Does one thing well.", "Does one thing well.", "", "'   '", "42",
                "'" + "\U0001F600" * 512 + "'", "'" + "\U0001F600" * 512 + "a'",
                "'" + "d" * 1025 + "'", "|\n  Two lines\n  of text.", ">\n  Folded\n  text.",
                "[not, text]", None)
FOLDERS = ("alpha", "beta-tool", "gamma", "delta-x", "my-skill", "Upper")


def frontmatter(rng: random.Random, folder: str) -> str:
    if rng.random() < 0.06:
        return "No frontmatter here, just text.\n"
    if rng.random() < 0.05:
        return "---\nname: [unclosed\ndescription: broken\n---\nBody\n"
    lines = []
    name = rng.choice(NAMES).format(dir=folder)
    if rng.random() < 0.85:
        lines.append(f"name: {name}")
    description = rng.choice(DESCRIPTIONS)
    if description is not None:
        lines.append(f"description: {description}")
    if rng.random() < 0.2:
        lines.append(f"disable-model-invocation: {rng.choice(('true', 'false', 'yes-ish'))}")
    if rng.random() < 0.15:
        lines.append("license: MIT")
    if rng.random() < 0.08 and lines:
        lines.append(rng.choice(lines))  # a repeated key
    rng.shuffle(lines)
    text = "---\n" + "\n".join(lines) + "\n---\n# Body\nDo the thing.\n"
    return text.replace("\n", "\r\n") if rng.random() < 0.1 else text


def make_root(rng: random.Random, root: Path) -> None:
    for folder in rng.sample(FOLDERS, rng.randint(1, 4)):
        place = root / ("group/" if rng.random() < 0.2 else "") / folder
        place.mkdir(parents=True, exist_ok=True)
        (place / "SKILL.md").write_text(frontmatter(rng, folder), encoding="utf-8", newline="")
        if rng.random() < 0.15:  # a SKILL.md below a skill: ignored by both
            (place / "inner").mkdir(exist_ok=True)
            (place / "inner" / "SKILL.md").write_text(frontmatter(rng, "inner"), encoding="utf-8")
    if rng.random() < 0.2:
        (root / "loose.md").write_text(frontmatter(rng, root.name), encoding="utf-8")


def course_load(root: Path) -> dict[str, Any]:
    from pi.coding_agent.resources.discovery import load_skills_from_dir
    from pi.coding_agent.resources.frontmatter import pi_json

    loaded = pi_json(load_skills_from_dir(root, "oracle"))
    for skill in loaded["skills"]:
        skill.pop("source", None)
    return loaded  # type: ignore[no-any-return]


def comparable(loaded: dict[str, Any]) -> dict[str, Any]:
    for diagnostic in loaded["diagnostics"]:
        if not RULES.match(diagnostic["message"]):
            diagnostic["message"] = "<parser or runtime error>"
    return loaded


def skill_folders(modules: Path, work: Path, seed: int, count: int = 60) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    roots = []
    for number in range(count):
        root = work / "skills" / f"root-{number}"
        root.mkdir(parents=True)
        make_root(rng, root)
        roots.append(root)
    answer = json.loads(run_node("skills_check.mjs", *map(str, roots), modules=modules))
    problems = []
    for root in roots:
        found = first_difference(comparable(course_load(root)), comparable(answer[str(root)]))
        if found:
            problems.append(f"skills seed {seed} {root.name}: first difference at {found}")
    return count, problems
