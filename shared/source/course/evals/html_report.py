"""The HTML report: one self-contained page to open in a browser or attach to a CI run.

Everything is inline (CSS in a `<style>` element, no scripts, no external files), so the page
works offline and from an artifact store. It shows what the JSON report holds (summary, the
matrix of cases × checkpoints, each outcome), plus the trajectory of the cases whose data may
be shown (`show_trajectory: true`): role, tool names and the first line of each message, never
a whole text. Every value is escaped; like the JSON report, the page holds no path or time.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from course.evals.matrix import Result

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; }
td.passed { background: #d9f2d9; } td.task_failed { background: #fff2cc; }
td.protocol_failed { background: #f8d0d0; } td.infra_failed { background: #e8d8f4; }
td.none { color: #999; } .error { color: #a00; } code { font-size: 13px; }
"""


def tag(name: str, body: str, **attributes: str) -> str:
    attrs = "".join(f' {key.rstrip("_")}="{escape(value)}"' for key, value in attributes.items())
    return f"<{name}{attrs}>{body}</{name}>"


def row(cells: Sequence[str], header: bool = False) -> str:
    return tag("tr", "".join(tag("th" if header else "td", cell) for cell in cells))


def summary(data: dict[str, Any]) -> str:
    items = "".join(tag("li", f"{escape(k)}: {v}") for k, v in data["summary"].items())
    about = f"suite {escape(data['suite'])}, model {escape(data['mode'])}, " \
            f"{data['repeats']} run(s) per cell"
    return tag("p", about) + tag("ul", items, id="summary")


def matrix(data: dict[str, Any]) -> str:
    labels = list(data["checkpoints"])
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in data["results"]:
        by_case.setdefault(entry["case"], {})[entry["checkpoint"]] = entry
    lines = [row(["case", *(escape(f"{k} {v}") for k, v in data["checkpoints"].items())], True)]
    for case, entries in sorted(by_case.items()):
        cells = [tag("td", escape(case))]
        for label in labels:
            entry = entries.get(label)
            status = entry["outcome"] if entry else "none"
            text = status.replace("_", " ") if entry else "—"
            cells.append(tag("td", escape(text), class_=status))
        lines.append(tag("tr", "".join(cells)))
    return tag("table", "".join(lines), id="matrix")


def outcomes(data: dict[str, Any]) -> str:
    head = ["case", "checkpoint", "outcome", "phase / code", "reason", "exercise",
            "failed checks", "tool calls", "tool errors", "checks passed",
            "passes (95% CI)", "tokens", "cost"]
    lines = [row(head, True)]
    for e in data["results"]:
        stats = e["stats"]
        lines.append(row([escape(str(x)) for x in (
            e["case"], e["checkpoint"], e["outcome"], f"{e['phase'] or ''} {e['code'] or ''}",
            e.get("reason") or "", e["exercise"] or "", ", ".join(e["failed_checks"]),
            stats.get("tool_calls", ""),
            stats.get("tool_errors", ""), f"{stats['checks_passed']}/{stats['checks_total']}",
            passes(e), stats.get("tokens", ""), stats.get("cost", ""))]))
    return tag("table", "".join(lines), id="outcomes")


def passes(entry: dict[str, Any]) -> str:
    """`c/n` runs passed, with the Wilson 95 % interval of the pass rate."""
    low, high = entry.get("pass_rate_ci95") or (0.0, 1.0)
    return f"{entry['passes']}/{entry['runs']} ({low:.2f}-{high:.2f})"


def trajectories(results: Sequence[Result]) -> str:
    parts = []
    for result in sorted(results, key=lambda r: (r.case.id, r.target.step)):
        steps = result.outcome.trajectory
        if not steps:
            continue
        lines = [row(["role", "tools", "text"], True)]
        for step in steps:
            text = tag("span", escape(step.text), class_="error") if step.is_error else escape(
                step.text)
            lines.append(row([escape(step.role), escape(", ".join(step.tools)), text]))
        title = f"{result.case.id} on {result.target.label}"
        parts.append(tag("h3", escape(title)) + tag("table", "".join(lines)))
    return "".join(parts) or tag("p", "No case of this run allows its trajectory to be shown.")


def html_page(data: dict[str, Any], results: Sequence[Result]) -> str:
    """The whole report page as text: summary, matrix, outcomes, allowed trajectories."""
    body = "".join([
        tag("h1", "pi-course evals"), summary(data), tag("h2", "Matrix"), matrix(data),
        tag("h2", "Outcomes"), outcomes(data), tag("h2", "Trajectories"), trajectories(results),
    ])
    head = '<meta charset="utf-8">' + tag("title", "pi-course evals") + tag("style", STYLE)
    return "<!DOCTYPE html>\n" + tag("html", tag("head", head) + tag("body", body),
                                     lang="en") + "\n"


def write_html(data: dict[str, Any], results: Sequence[Result], file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(html_page(data, results), encoding="utf-8")
