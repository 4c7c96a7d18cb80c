"""What opening a session costs, against decoding its JSON (step 09).

"Opening" is `read_session` and then `build_context` for its leaf: what every resumed
session does first. Three targets, each printed with PASS/FAIL (machines differ; nothing
here is a test):

- time: at most 3× a bare `json.loads` of every line of the same file (the floor), on Pi's
  reference sessions and on generated ones of 1k, 10k and 100k entries;
- growth: ten times the entries cost at most 12× the time (linear);
- memory: peak RSS above the interpreter's baseline, at 100k entries, at most 4× the file.

Times are CPU time, taken as `timeit` takes them: with the cyclic garbage collector paused
on both sides, so that the figure is the work of reading and not when CPython's collector
happens to run over everything read so far (on 3.11 that cost grows with the number of live
objects, for a bare `json.loads` of each line as much as for ours). A neighbour's load slows
whatever runs beside it in spells of seconds, so the ratio to the floor is measured in pairs:
each round times the floor and then ours, and the ratio is the median of the rounds' ratios.

    python benchmarks/session_bench.py             # generated files go to a temporary folder
    python benchmarks/session_bench.py --keep DIR  # or to DIR, kept for the next run
"""

from __future__ import annotations

import gc
import itertools
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from make_sessions import ROOT, session_path
from rich.console import Console
from rich.table import Table

from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.reader import read_session

REFERENCE = ROOT / "shared" / "data" / "pi-reference" / "sessions"
SIZES = (1_000, 10_000, 100_000)
console = Console(highlight=False, width=120)
TALLY: list[bool] = []  # every target's verdict, in the order printed


def mark(ok: bool) -> str:
    TALLY.append(ok)
    return "[green]PASS[/green]" if ok else "[red]FAIL[/red]"


def floor(path: Path) -> None:
    """The floor: decode every line and keep the results."""
    with path.open("rb") as file:
        [json.loads(line) for line in file]


def open_session(path: Path) -> None:
    """Ours: read the file and build the context of its leaf."""
    session = read_session(path)
    build_context(session.tree, session.tree.leaf_on_load)


def cpu(work: object, path: Path) -> float:
    assert callable(work)
    gc.collect()
    gc.disable()  # as timeit does: the work itself, not the collector's passes over it
    try:
        start = time.process_time()
        work(path)
        return time.process_time() - start
    finally:
        gc.enable()


def rounds_for(size: int) -> int:
    """More rounds for a small file: a moment's load weighs more on its short rounds."""
    return 5 if size > 50_000_000 else 9 if size > 5_000_000 else 25


def measure(path: Path) -> tuple[float, float, float]:
    """(best floor, best ours, median of the rounds' ratios) in seconds."""
    pairs = [(cpu(floor, path), cpu(open_session, path))
             for _ in range(rounds_for(path.stat().st_size))]
    return (min(f for f, _ in pairs), min(o for _, o in pairs),
            statistics.median(o / f for f, o in pairs))


def peak_rss() -> int:
    """This process's peak RSS in bytes (VmHWM starts afresh at exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_child(mode: str, path: Path) -> None:
    """In a fresh process: peak RSS before and after the work, as JSON on stdout."""
    before = peak_rss()
    (floor if mode == "floor" else open_session)(path)
    print(json.dumps({"baseline": before, "peak": peak_rss()}))


def rss_of(mode: str, path: Path) -> int:
    """Peak RSS above the interpreter's baseline, in bytes, for `mode` on `path`."""
    done = subprocess.run([sys.executable, __file__, "--rss", mode, str(path)],
                          capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    return int(data["peak"] - data["baseline"])


def generate_missing(folder: Path) -> None:
    """Write the generated sessions not there yet, in a process of their own (so that this
    process's heap is not left full of what generating them freed)."""
    missing = [str(size) for size in SIZES if not session_path(folder, size).exists()]
    if missing:
        subprocess.run([sys.executable, str(Path(__file__).with_name("make_sessions.py")),
                        str(folder), *missing], check=True, stdout=subprocess.DEVNULL)


def report(folder: Path) -> None:
    generated = [(f"generated {size:,}", session_path(folder, size)) for size in SIZES]
    reference = [(p.name, p) for p in sorted(REFERENCE.glob("*.jsonl"))
                 if p.stat().st_size > 100_000]
    table = Table("session", "entries", "MB", "floor", "ours", "ratio", "target", "",
                  title="read_session + build_context for the leaf, against a bare json.loads "
                        "of every line; times: the best round; ratio: the median of the rounds")
    best: dict[str, float] = {}
    for name, path in reference + generated:
        bare, ours, ratio = measure(path)
        best[name] = ours
        entries = len(path.read_bytes().splitlines()) - 1
        table.add_row(name, f"{entries:,}", f"{path.stat().st_size / 1e6:.1f}",
                      f"{bare * 1000:.1f} ms", f"{ours * 1000:.1f} ms", f"{ratio:.2f}×",
                      "≤ 3.00×", mark(ratio <= 3.0))
    console.print(table)
    for small, large in itertools.pairwise(SIZES):
        grow = best[f"generated {large:,}"] / best[f"generated {small:,}"]
        console.print(f"{large:,} vs {small:,} entries: {grow:.1f}× the time "
                      f"(target ≤ 12×) {mark(grow <= 12)}")
    biggest = generated[-1][1]
    size = biggest.stat().st_size
    ours, bare = rss_of("ours", biggest), rss_of("floor", biggest)
    console.print(f"peak RSS above the baseline, {biggest.name} ({size / 1e6:.0f} MB): ours "
                  f"{ours / 1e6:.0f} MB = {ours / size:.2f}× the file (target ≤ 4×) "
                  f"{mark(ours <= 4 * size)}; the floor's {bare / 1e6:.0f} MB = "
                  f"{bare / size:.2f}×")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--rss"]:
        rss_child(argv[1], Path(argv[2]))
        return 0
    keep = Path(argv[1]) if argv[:1] == ["--keep"] and len(argv) > 1 else None
    with tempfile.TemporaryDirectory() as scratch:
        folder = keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        generate_missing(folder)
        report(folder)
    met = sum(TALLY)
    console.print(f"{met} of {len(TALLY)} targets met")
    return 0 if met == len(TALLY) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
