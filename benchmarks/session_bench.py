"""What reading a session costs, against decoding its JSON and against real Pi (steps 09-10).

Every figure is measured in this one run, side by side, and printed with its target and a
PASS/FAIL mark (machines differ; nothing here is a test). Times are CPU time: on a shared
machine, wall time would also count everybody else's work. But a neighbour's load also
slows the CPU time of what runs beside it, in spells that last seconds (on the 2-core
machine, the best of each half-second of bare `json.loads` went from 11.7 ms to 25.4 ms and
back). So a ratio is measured in pairs: each round times both sides back to back, and the
ratio is the median of the rounds' ratios. A spell that slows one round slows both sides of
it; the best time of each side over all rounds, as printed, may come from different spells
(such a pair of bests once gave large-session.jsonl 1.08x, and 1.70x in the next run).

- open + context for the leaf + cut point + prepare, against the floor: a bare `json.loads`
  of every line of the same file (target ≤ 3×), on Pi's reference sessions and on generated
  ones of 1k, 10k and 100k entries;
- ten times the entries at most 12× the time (linear), for that work, with best times; a
  whole-tree walk's growth is shown beside it, measured in pairs in a process of its own;
- peak memory (RSS, in a fresh process) above the interpreter's baseline at 100k entries:
  at most 4× the file;
- real Pi's SessionManager and compaction functions on the same 100k file, operation by
  operation (open, context, path, walk, cut, prepare, branch summary), shown. Our reader
  estimates the newest messages' tokens while it
  holds their entries: that cost is part of "open", and the cut reads the numbers kept. Pi
  comes from npm (`@mariozechner/pi-coding-agent`, the newest release) into
  ~/.cache/pi-course/session-bench when node is present;
- `python -m course session context --json` (the step-14 checkpoint's command) on the 100k file,
  against the floor in a process of its own: at most 3× the time, at most 4× the file in
  peak RSS.

    python benchmarks/session_bench.py             # generated files go to a temporary folder
    python benchmarks/session_bench.py --keep DIR  # or to DIR, kept for the next run
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from make_sessions import ROOT, session_path
from rich.console import Console
from rich.table import Table

from pi.coding_agent.compaction.branch_summary import (
    collect_entries_for_branch_summary,
    prepare_branch_entries,
)
from pi.coding_agent.compaction.cut_points import find_cut_point
from pi.coding_agent.compaction.prepare import latest_compaction_index, prepare_compaction
from pi.coding_agent.compaction.thresholds import DEFAULT_COMPACTION_SETTINGS as SETTINGS
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.tree import SessionTree

REFERENCE = ROOT / "shared" / "data" / "pi-reference" / "sessions"
CHECKPOINT = ROOT / "checkpoints" / "14_evals"
SIZES = (1_000, 10_000, 100_000)
PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_CACHE = Path(os.environ.get("PI_COURSE_SESSION_BENCH_NPM",
                               Path.home() / ".cache" / "pi-course" / "session-bench"))
FLOOR_CODE = ("import gc, json\ngc.disable()\n"
              "with open(sys.argv[1], 'rb') as f:\n    lines = [json.loads(l) for l in f]\n")
OPS = ("open", "context", "path", "walk", "cut", "prepare", "branch summary")
WALK_SAMPLES = 75  # walks timed per file; the first of a round also sorts late children
# (settle). The same number at every size: the best of fewer tries would sit higher, and a
# big file's fewer rounds would make its walk look slower per node than it is.
console = Console(highlight=False, width=120)


TALLY: list[bool] = []  # every target's verdict, in the order printed


def mark(ok: bool) -> str:
    TALLY.append(ok)
    return "[green]PASS[/green]" if ok else "[red]FAIL[/red]"


def floor(path: Path) -> None:
    """The floor: decode every line and keep the results, with the collector off."""
    gc.disable()
    try:
        with path.open("rb") as file:
            [json.loads(line) for line in file]
    finally:
        gc.enable()


def off_path_target(tree: SessionTree, leaf: str) -> str:
    """An entry on another branch than the leaf's (the newest such), for a branch summary."""
    on_path = {node.id for node in tree.node_path(leaf)}
    return next((n.id for n in reversed(tree.nodes) if n.id not in on_path), leaf)


def operations(path: Path, times: dict[str, float], walks: int = 3) -> None:
    """Each operation of one session, timed; the best time of each is kept in `times`."""

    def timed(name: str, work: Callable[[], Any]) -> Any:
        start = time.process_time()
        result = work()
        times[name] = min(times.get(name, float("inf")), time.process_time() - start)
        return result

    session = timed("open", lambda: read_session(path))
    tree = session.tree
    leaf = tree.leaf_on_load or ""
    timed("context", lambda: build_context(tree, leaf))
    entries = timed("path", lambda: tree.path_to(leaf))
    for _ in range(walks):
        timed("walk", lambda: sum(1 for _ in tree.walk()))
    start = latest_compaction_index(entries) + 1
    timed("cut", lambda: find_cut_point(entries, start, len(entries),
                                        SETTINGS.keep_recent_tokens))
    timed("prepare", lambda: prepare_compaction(entries, SETTINGS))
    target = off_path_target(tree, leaf)
    timed("branch summary", lambda: prepare_branch_entries(
        collect_entries_for_branch_summary(entries, tree.path_to(target)).entries))


def work_total(times: dict[str, float]) -> float:
    """open + context for the leaf + cut point + prepare (the path is part of context)."""
    return sum(times[name] for name in ("open", "context", "path", "cut", "prepare"))


def rounds_for(size: int) -> int:
    """More rounds for a small file: a moment's load weighs more on its short rounds."""
    return 5 if size > 50_000_000 else 9 if size > 5_000_000 else 25


@dataclass
class Measured:
    """One session's rounds: each round's floor and our operations' times."""

    floors: list[float] = field(default_factory=list)
    rounds: list[dict[str, float]] = field(default_factory=list)

    @property
    def best(self) -> dict[str, float]:
        """Every operation's best time over all rounds."""
        return {name: min(times[name] for times in self.rounds) for name in self.rounds[0]}

    def ratio(self) -> float:
        """Ours against the floor: the median of the rounds' ratios."""
        return statistics.median(work_total(times) / bare
                                 for bare, times in zip(self.floors, self.rounds, strict=True))


def measure(path: Path, rounds: int) -> Measured:
    """`rounds` rounds of one session, each the floor and then our operations."""
    walks = -(-WALK_SAMPLES // rounds)
    measured = Measured()
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        floor(path)
        measured.floors.append(time.process_time() - start)
        gc.collect()
        times: dict[str, float] = {}
        operations(path, times, walks)
        measured.rounds.append(times)
    return measured


def peak_rss() -> int:
    """This process's peak RSS in bytes: VmHWM, which (unlike ru_maxrss) starts afresh at
    exec, so a child never reports the memory of the process that started it."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_child(mode: str, path: Path) -> None:
    """In a fresh process: peak RSS before and after the work, as JSON on stdout."""
    before = peak_rss()
    if mode == "floor":
        floor(path)
    else:
        operations(path, {})
    print(json.dumps({"baseline": before, "peak": peak_rss()}))


def rss_of(mode: str, path: Path) -> int:
    """Peak RSS above the interpreter's baseline, in bytes, for `mode` on `path`."""
    done = subprocess.run([sys.executable, __file__, "--rss", mode, str(path)],
                          capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    return int(data["peak"] - data["baseline"])


REPORT_PEAK = ("import atexit, sys\n"
               "def peak():\n"
               "    for line in open('/proc/self/status'):\n"
               "        if line.startswith('VmHWM:'):\n"
               "            sys.stderr.write('PEAK ' + line.split()[1] + '\\n')\n"
               "atexit.register(peak)\n")
RUN_PI = REPORT_PEAK + ("import runpy\nsys.argv = ['course', *sys.argv[1:]]\n"
                        "runpy.run_module('course', run_name='__main__', alter_sys=True)\n")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(argv: list[str], cwd: Path) -> tuple[float, int]:
    """(CPU seconds, peak RSS bytes) of one Python command, its output thrown away."""
    start = children_cpu()
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    seconds = children_cpu() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    peaks = [int(line.split()[1]) * 1024 for line in done.stderr.splitlines()
             if line.startswith("PEAK ")]
    return seconds, max(peaks, default=0)


def generate_missing(folder: Path, sizes: tuple[int, ...]) -> None:
    """Write the generated sessions not there yet, in a process of their own.

    Generating 111,000 entries here would leave this process's heap full of freed blocks,
    and every later measurement would run in that state: it slowed the floor's `json.loads`
    by a fifth and our reading by only a twentieth, flattering the small files' ratios
    (1.38× instead of 1.58× for large-session.jsonl).
    """
    missing = [str(size) for size in sizes if not session_path(folder, size).exists()]
    if missing:
        subprocess.run([sys.executable, str(Path(__file__).with_name("make_sessions.py")),
                        str(folder), *missing], check=True, stdout=subprocess.DEVNULL)


def real_pi() -> tuple[Path, str] | None:
    """Real Pi's `dist` folder and version, installed once into the cache; None without node."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None
    package = PI_CACHE / "node_modules" / PI_PACKAGE
    newest = subprocess.run(["npm", "view", PI_PACKAGE, "version"], capture_output=True,
                            text=True).stdout.strip()
    installed = (json.loads((package / "package.json").read_text())["version"]
                 if (package / "package.json").exists() else None)
    if newest and newest != installed:
        PI_CACHE.mkdir(parents=True, exist_ok=True)
        (PI_CACHE / "package.json").write_text('{"private": true}\n')
        subprocess.run(["npm", "install", "--prefix", str(PI_CACHE), "--no-audit", "--no-fund",
                        "--ignore-scripts", f"{PI_PACKAGE}@{newest}"], check=True,
                       capture_output=True)
        installed = newest
    return (package / "dist", installed) if installed else None


def pi_times(dist: Path, path: Path, target: str, rounds: int) -> dict[str, float]:
    """Real Pi's best time of each operation, in seconds (Pi reads a copy of the file)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / path.name
        shutil.copy(path, copy)
        done = subprocess.run(["node", str(Path(__file__).with_name("session_pi.mjs")),
                               str(dist), str(copy), str(rounds), target],
                              capture_output=True, text=True, check=True)
    return {name: ms / 1000 for name, ms in json.loads(done.stdout).items()}


def report_floor(results: dict[str, tuple[Path, Measured]]) -> None:
    table = Table("session", "entries", "MB", "floor", "ours", "ratio", "target", "",
                  title="open + context for the leaf + cut point + prepare, against a bare "
                        "json.loads of every line (collector off); times: the best round; "
                        "ratio: the median of the rounds' ratios")
    for name, (path, measured) in results.items():
        ratio = measured.ratio()
        entries = len(path.read_bytes().splitlines()) - 1
        table.add_row(name, f"{entries:,}", f"{path.stat().st_size / 1e6:.1f}",
                      f"{min(measured.floors) * 1000:.1f} ms",
                      f"{work_total(measured.best) * 1000:.1f} ms", f"{ratio:.2f}×",
                      "≤ 3.00×", mark(ratio <= 3.0))
    console.print(table)


WALK_ROUNDS = 15


def walk_child(paths: list[Path]) -> None:
    """In a fresh process: each round's time per walk of every tree, as JSON on stdout."""
    trees = [read_session(path).tree for path in paths]
    most = max(len(tree.nodes) for tree in trees)
    rounds: list[list[float]] = []
    for _ in range(WALK_ROUNDS):
        times = []
        for tree in trees:
            walks = max(1, most // len(tree.nodes))
            start = time.process_time()
            for _ in range(walks):
                sum(1 for _ in tree.walk())
            times.append((time.process_time() - start) / walks)
        rounds.append(times)
    print(json.dumps(rounds))


def walk_growth(paths: list[Path]) -> list[float]:
    """For each pair of neighbouring sizes, the median of the rounds' ratios of a walk."""
    done = subprocess.run([sys.executable, __file__, "--walks", *map(str, paths)],
                          capture_output=True, text=True, check=True)
    rounds = json.loads(done.stdout)
    return [statistics.median(times[i + 1] / times[i] for times in rounds)
            for i in range(len(paths) - 1)]


def report_growth(results: dict[str, tuple[Path, Measured]]) -> None:
    paths = [results[f"generated {size:,}"][0] for size in SIZES]
    walks = walk_growth(paths)
    for (small, large), walk in zip(itertools.pairwise(SIZES), walks, strict=True):
        a, b = results[f"generated {small:,}"][1].best, results[f"generated {large:,}"][1].best
        grow = work_total(b) / work_total(a)
        console.print(f"{large:,} vs {small:,} entries: open + context + cut + prepare "
                      f"{grow:.1f}× the time (best times; target ≤ 12×) {mark(grow <= 12)}, "
                      f"whole-tree walk {walk:.1f}× (paired; shown)")


def report_memory(biggest: Path) -> None:
    size = biggest.stat().st_size
    ours, bare = rss_of("ours", biggest), rss_of("floor", biggest)
    console.print(f"peak RSS above the baseline, {biggest.name} ({size / 1e6:.0f} MB): ours "
                  f"{ours / 1e6:.0f} MB = {ours / size:.2f}× the file (target ≤ 4×) "
                  f"{mark(ours <= 4 * size)}; the floor's {bare / 1e6:.0f} MB = "
                  f"{bare / size:.2f}×")


def report_pi(biggest: Path, ours: dict[str, float]) -> None:
    found = real_pi()
    if found is None:
        console.print("real Pi: skipped (node and npm are not on this machine)")
        return
    dist, version = found
    tree = read_session(biggest).tree
    target = off_path_target(tree, tree.leaf_on_load or "")
    pi = pi_times(dist, biggest, target, rounds=3)
    table = Table("operation", "ours", f"Pi {version}", "ours / Pi", "target", "",
                  title=f"against real Pi's SessionManager on {biggest.name}")
    for name in OPS:
        table.add_row(name, f"{ours[name] * 1000:.1f} ms", f"{pi[name] * 1000:.1f} ms",
                      f"{ours[name] / pi[name]:.2f}×", "shown", "")
    total_ours, total_pi = work_total(ours), work_total(pi)
    table.add_row("open + context + cut + prepare", f"{total_ours * 1000:.0f} ms",
                  f"{total_pi * 1000:.0f} ms", f"{total_ours / total_pi:.2f}×", "shown", "")
    console.print(table)


def report_command(biggest: Path) -> None:
    size = biggest.stat().st_size
    ours, bare, start = [], [], []
    for _ in range(3):  # interleaved rounds
        ours.append(run_child([sys.executable, "-c", RUN_PI, "session", "context", "--json",
                               str(biggest)], CHECKPOINT))
        bare.append(run_child([sys.executable, "-c", REPORT_PEAK + FLOOR_CODE, str(biggest)],
                              ROOT))
        start.append(run_child([sys.executable, "-c", RUN_PI, "--help"], CHECKPOINT)[0])
    seconds, rss = min(t for t, _ in ours), max(r for _, r in ours)
    floor_seconds = min(t for t, _ in bare)
    console.print(f"`python -m course session context --json` (checkpoint 14) on {biggest.name}: "
                  f"{seconds:.2f} s = {seconds / floor_seconds:.2f}× the floor's "
                  f"{floor_seconds:.2f} s in its own process (target ≤ 3×) "
                  f"{mark(seconds <= 3 * floor_seconds)}; of that, start-up (`--help`) "
                  f"{min(start):.2f} s; peak RSS {rss / 1e6:.0f} MB = {rss / size:.2f}× the file "
                  f"(target ≤ 4×) {mark(rss <= 4 * size)}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--rss"]:
        rss_child(argv[1], Path(argv[2]))
        return 0
    if argv[:1] == ["--walks"]:
        walk_child([Path(arg) for arg in argv[1:]])
        return 0
    keep = Path(argv[1]) if argv[:1] == ["--keep"] and len(argv) > 1 else None
    with tempfile.TemporaryDirectory() as scratch:
        folder = keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        generate_missing(folder, SIZES)
        generated = [(f"generated {size:,}", session_path(folder, size)) for size in SIZES]
        reference = [(p.name, p) for p in sorted(REFERENCE.glob("*.jsonl"))
                     if p.stat().st_size > 100_000]
        results = {name: (path, measure(path, rounds_for(path.stat().st_size)))
                   for name, path in reference + generated}
        report_floor(results)
        report_growth(results)
        biggest = generated[-1][1]
        report_memory(biggest)
        report_pi(biggest, results[generated[-1][0]][1].best)
        report_command(biggest)
    met = sum(TALLY)
    console.print(f"{met} of {len(TALLY)} targets met")
    return 0 if met == len(TALLY) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
