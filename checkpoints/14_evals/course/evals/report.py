"""The JSON report: counts and categories, in a stable schema two runs can compare byte for byte.

A report is shared (in CI logs, in a pull request, as a baseline), so it holds no raw
transcript, no file content, no absolute path, no secret, and no timestamp: outcome, phase,
code, the names of failed checks, and counts. Keys are sorted and results ordered by case and
step, so the same run gives the same bytes, and a diff between two reports is a real change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from pi.ai.messages import json_text
from course.evals.matrix import Result, pass_at_k, wilson
from course.evals.outcomes import STATUSES
from course.evals.phases import Target

VERSION = 1
SHORT = {"passed": "[green]pass", "task_failed": "[yellow]task",
         "protocol_failed": "[red]protocol", "infra_failed": "[magenta]infra"}


def result_data(result: Result) -> dict[str, Any]:
    outcome = result.outcome
    checks = [check for run in result.runs for check in run.checks]
    n, c = len(result.runs), result.passes
    return {
        "case": result.case.id,
        "checkpoint": result.target.label,
        "outcome": outcome.status,
        "phase": outcome.phase,
        "code": outcome.code,
        "reason": outcome.reason,
        "exercise": outcome.exercise,
        "fixture": result.case.fixture,
        "failed_checks": list(outcome.failed_checks),
        "secondary": sorted({code for run in result.runs for code in run.secondary}),
        "stats": {**outcome.stats, "checks_passed": sum(1 for x in checks if x.passed),
                  "checks_total": len(checks)},
        "runs": n,
        "passes": c,
        "pass_at_k": {str(k): round(pass_at_k(n, c, k), 4) for k in sorted({1, n})},
        "pass_rate_ci95": [round(bound, 4) for bound in wilson(c, n)],
    }


def report_data(results: Sequence[Result], targets: Sequence[Target], suite: Path,
                mode: str, repeats: int, fresh: int | None = None,
                shard: str | None = None) -> dict[str, Any]:
    """The report as plain data; `suite` and the checkpoints appear by folder name only."""
    ordered = sorted(results, key=lambda r: (r.case.id, r.target.step))
    data = {
        "version": VERSION,
        "suite": suite.name,
        "mode": mode,
        "repeats": repeats,
        "fresh": fresh,
        "checkpoints": {t.label: t.folder.name for t in sorted(targets, key=lambda t: t.step)},
        "results": [result_data(r) for r in ordered],
    }
    if shard is not None:
        data["shard"] = shard
    return with_summary(data)


def with_summary(data: dict[str, Any]) -> dict[str, Any]:
    counts = Counter(str(entry["outcome"]) for entry in data["results"])
    return {**data, "summary": {status: counts.get(status, 0) for status in STATUSES}}


class MergeError(ValueError):
    """Shard reports that cannot be joined; one line naming the file and the reason."""


SAME_IN_EVERY_SHARD = ("version", "suite", "mode", "repeats", "fresh")


def merge_reports(reports: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One report from the shards' reports (name, data): same run settings, no cell twice."""
    if not reports:
        raise MergeError("nothing to merge: give the shards' JSON reports")
    first_name, first = reports[0]
    seen: dict[tuple[str, str], str] = {}
    checkpoints: dict[str, str] = {}
    results: list[dict[str, Any]] = []
    for name, data in reports:
        for key in SAME_IN_EVERY_SHARD:
            if data.get(key) != first.get(key):
                raise MergeError(f"{name}: {key} is {data.get(key)!r}, "
                                 f"but {first.get(key)!r} in {first_name}")
        for entry in data.get("results", []):
            cell = (str(entry["case"]), str(entry["checkpoint"]))
            if cell in seen:
                raise MergeError(f"{name}: {cell[0]} @ {cell[1]} is also in {seen[cell]}")
            seen[cell] = name
            results.append(entry)
        checkpoints.update(data.get("checkpoints", {}))
    merged = {key: first.get(key) for key in SAME_IN_EVERY_SHARD}
    merged["checkpoints"] = dict(sorted(checkpoints.items()))
    merged["results"] = sorted(results, key=lambda e: (e["case"], e["checkpoint"]))
    return with_summary(merged)


def report_text(data: dict[str, Any]) -> str:
    return json_text(data, indent=2, sort_keys=True) + "\n"


def write_report(data: dict[str, Any], file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(report_text(data), encoding="utf-8")


def cell(entry: dict[str, Any]) -> str:
    text = SHORT[entry["outcome"]]
    if entry["runs"] > 1:
        low, high = entry["pass_rate_ci95"]
        text += f" {entry['passes']}/{entry['runs']} [{low:.2f}-{high:.2f}]"
    return text + (f" ({entry['exercise']})" if entry["exercise"] else "")


def matrix_table(data: dict[str, Any]) -> Table:
    """Cases down, checkpoints across; a dash where a case does not apply yet."""
    columns = list(data["checkpoints"])
    table = Table(title=f"evals: {data['suite']} ({data['mode']})", title_justify="left")
    table.add_column("case")
    for label in columns:
        table.add_column(label, justify="center")
    cells: dict[str, dict[str, str]] = {}
    for entry in data["results"]:
        cells.setdefault(entry["case"], {})[entry["checkpoint"]] = cell(entry)
    for case, row in sorted(cells.items()):
        table.add_row(case, *(row.get(label, "[dim]—") for label in columns))
    return table


def summary_line(data: dict[str, Any]) -> str:
    return ", ".join(f"{count} {status}" for status, count in data["summary"].items())
