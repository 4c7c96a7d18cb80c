"""The JSON report, its matrix table, and the comparison with a baseline report.

A report is shared, so it holds counts and categories only (no transcript, file, path, secret
or time), with sorted keys: the same run gives the same bytes. A baseline comparison fails
only on a regression: a cell that passed before and does not now.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from pi.ai.bounded import TooLarge, read_file, read_json
from pi.ai.messages import json_text
from course.evals.matrix import Result, pass_at_k
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
        "failed_checks": [check.name for check in outcome.checks if not check.passed],
        "secondary": sorted({code for run in result.runs for code in run.secondary}),
        "stats": {**outcome.stats, "checks_passed": sum(1 for x in checks if x.passed),
                  "checks_total": len(checks)},
        "runs": n,
        "passes": c,
        "pass_at_k": {str(k): round(pass_at_k(n, c, k), 4) for k in sorted({1, n})},
    }


def report_data(results: Sequence[Result], targets: Sequence[Target], suite: Path,
                mode: str, repeats: int) -> dict[str, Any]:
    """The report as plain data; `suite` and the checkpoints appear by folder name only."""
    ordered = sorted(results, key=lambda r: (r.case.id, r.target.step))
    data: dict[str, Any] = {
        "version": VERSION,
        "suite": suite.name,
        "mode": mode,
        "repeats": repeats,
        "checkpoints": {t.label: t.folder.name for t in sorted(targets, key=lambda t: t.step)},
        "results": [result_data(r) for r in ordered],
    }
    counts = Counter(str(entry["outcome"]) for entry in data["results"])
    return {**data, "summary": {status: counts.get(status, 0) for status in STATUSES}}


def write_report(data: dict[str, Any], file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json_text(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def cell(entry: dict[str, Any]) -> str:
    text = SHORT[entry["outcome"]]
    if entry["runs"] > 1:
        text += f" {entry['passes']}/{entry['runs']}"
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


class BaselineError(ValueError):
    """A baseline that cannot be read or has another schema; one line naming the file."""


def load_baseline(file: Path) -> dict[str, Any]:
    try:
        data = read_json(read_file(file))
    except OSError as error:
        raise BaselineError(f"{file}: {error.strerror}") from None
    except TooLarge as error:
        raise BaselineError(f"{file}: {error}") from None
    except json.JSONDecodeError as error:
        raise BaselineError(f"{file}:{error.lineno}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise BaselineError(f"{file}: not an eval report of version {VERSION}")
    return data


def compare(current: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """What changed, cell by cell (case @ checkpoint): regressions first, then fixes, new
    and gone cells. A cell of a checkpoint this run did not measure was not asked about."""
    now, before = outcomes_by_cell(current), outcomes_by_cell(baseline)
    found: dict[str, list[str]] = {"regression": [], "fixed": [], "new": [], "gone": []}
    for cell in sorted(set(now) | set(before)):
        name = f"{cell[0]} @ {cell[1]}"
        if cell not in before:
            found["new"].append(name)
        elif cell not in now:
            if cell[1] in current["checkpoints"]:
                found["gone"].append(name)
        elif (before[cell] == "passed") != (now[cell] == "passed"):
            kind = "regression" if before[cell] == "passed" else "fixed"
            found[kind].append(f"{name}: {before[cell]} → {now[cell]}")
    return [f"{kind}: {item}" for kind, items in found.items() for item in items]


def outcomes_by_cell(data: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(r["case"], r["checkpoint"]): r["outcome"] for r in data.get("results", [])}
