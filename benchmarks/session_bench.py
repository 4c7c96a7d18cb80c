"""How much reading a session costs compared with only decoding its JSON (step 09).

For Pi's reference sessions and generated ones of 1k, 10k and 100k entries, it times
"open + context for the last leaf" (`read_session` then `build_context`) against a bare
`json.loads` of every line of the same file, and prints the ratio, how the time grows with
ten times the entries, and the peak memory of loading the largest file against its size.
Everything is measured in this run; nothing is asserted (machines differ). Targets: ratio
≤ 1.5×, 10× entries ≤ 11× time, peak memory < 3× the file size.

    python benchmarks/session_bench.py            # generated files go to a temporary folder
    python benchmarks/session_bench.py --keep DIR # or to DIR, kept for the next run
"""

from __future__ import annotations

import gc
import itertools
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from make_sessions import ROOT, make_session
from rich.console import Console
from rich.table import Table

from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.reader import read_session

REFERENCE = ROOT / "shared" / "data" / "pi-reference" / "sessions"
SIZES = (1_000, 10_000, 100_000)


def bare_json(path: Path) -> int:
    """The floor: decode every line and keep the results, nothing else."""
    with path.open("rb") as file:
        return len([json.loads(line) for line in file])


def bare_json_gc_off(path: Path) -> int:
    """The same with the cycle collector paused, as `read_session` pauses it."""
    gc.disable()
    try:
        return bare_json(path)
    finally:
        gc.enable()


def open_and_context(path: Path) -> int:
    session = read_session(path)
    return len(build_context(session.tree, session.tree.leaf_on_load).messages)


def best_time(work: Callable[[Path], int], path: Path, runs: int) -> float:
    """The fastest of `runs` runs, each starting with a clean collector."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        work(path)
        times.append(time.perf_counter() - start)
    return min(times)


def peak_memory(path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    session = read_session(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del session
    return peak


def measure(files: list[tuple[str, Path]]) -> dict[str, tuple[int, float, float, float]]:
    """name → (entries, bare seconds, bare seconds with gc off, open + context seconds)."""
    out = {}
    for name, path in files:
        runs = 2 if path.stat().st_size > 50_000_000 else 5
        entries = bare_json(path) - 1
        out[name] = (entries, best_time(bare_json, path, runs),
                     best_time(bare_json_gc_off, path, runs),
                     best_time(open_and_context, path, runs))
    return out


def report(files: list[tuple[str, Path]], biggest: Path) -> None:
    results = measure(files)
    table = Table("session", "entries", "MB", "json.loads", "(gc off)", "open + context",
                  "ratio", "(vs gc off)",
                  title="open + context for the last leaf vs a bare json.loads of every line")
    sizes = {name: path.stat().st_size for name, path in files}
    for name, (entries, bare, bare_off, ours) in results.items():
        table.add_row(name, f"{entries:,}", f"{sizes[name] / 1e6:.1f}", f"{bare * 1000:.0f} ms",
                      f"{bare_off * 1000:.0f} ms", f"{ours * 1000:.0f} ms",
                      f"{ours / bare:.2f}×", f"{ours / bare_off:.2f}×")
    console = Console(highlight=False, width=110)
    console.print(table)
    for small, large in itertools.pairwise(SIZES):
        a, b = results[f"generated {small:,}"], results[f"generated {large:,}"]
        console.print(f"{large:,} vs {small:,} entries ({b[0] / a[0]:.1f}× entries): "
                      f"{b[3] / a[3]:.1f}× time (target ≤ 11×)")
    peak, size = peak_memory(biggest), biggest.stat().st_size
    with biggest.open("rb") as file:
        gc.collect()
        tracemalloc.start()
        decoded = [json.loads(line) for line in file]
        floor = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del decoded
    console.print(f"peak memory loading {biggest.name} ({size / 1e6:.0f} MB): "
                  f"{peak / 1e6:.0f} MB = {peak / size:.2f}× the file (target < 3×); "
                  f"bare json.loads: {floor / 1e6:.0f} MB = {floor / size:.2f}×")


def main(argv: list[str]) -> None:
    keep = Path(argv[1]) if argv[:1] == ["--keep"] and len(argv) > 1 else None
    with tempfile.TemporaryDirectory() as scratch:
        folder = keep or Path(scratch)
        generated = []
        for size in SIZES:
            path = folder / f"session-{size}.jsonl"
            if not path.exists():
                make_session(path, size)
            generated.append((f"generated {size:,}", path))
        reference = [(p.name, p) for p in sorted(REFERENCE.glob("*.jsonl"))
                     if p.stat().st_size > 100_000]
        report(reference + generated, generated[-1][1])


if __name__ == "__main__":
    main(sys.argv[1:])
