"""Baselines: compare this run with a stored report, and fail on any regression.

A suite is useful in CI only if a change that breaks something turns the build red, while
cases that were already failing (a known gap, a step not yet built) do not. So results are
matched by case id and checkpoint, and the only thing that fails the comparison is a
regression: passed before, anything else now. Fixes, new and vanished cells are reported too.
A baseline is never written as a side effect: only when asked for (`--write-baseline`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.ai.bounded import TooLarge, read_file, read_json
from course.evals.report import VERSION

Key = tuple[str, str]


class BaselineError(ValueError):
    """A baseline that cannot be read or has another schema; one line naming the file."""


@dataclass(frozen=True)
class Comparison:
    regressions: tuple[str, ...]
    fixes: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.regressions

    def lines(self) -> list[str]:
        found = [("regression", self.regressions), ("fixed", self.fixes),
                 ("new", self.added), ("gone", self.removed)]
        return [f"{kind}: {item}" for kind, items in found for item in items]


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


def outcomes_by_key(data: dict[str, Any]) -> dict[Key, str]:
    return {(r["case"], r["checkpoint"]): r["outcome"] for r in data.get("results", [])}


def compare(current: dict[str, Any], baseline: dict[str, Any]) -> Comparison:
    """What changed from `baseline` to `current`, cell by cell (case @ checkpoint).

    A cell of a checkpoint this run did not measure is not "gone": it was not asked about.
    """
    now, before = outcomes_by_key(current), outcomes_by_key(baseline)

    def name(key: Key) -> str:
        return f"{key[0]} @ {key[1]}"

    def change(key: Key) -> str:
        return f"{name(key)}: {before[key]} → {now[key]}"

    common = sorted(set(now) & set(before))
    return Comparison(
        regressions=tuple(change(k) for k in common
                          if before[k] == "passed" and now[k] != "passed"),
        fixes=tuple(change(k) for k in common if before[k] != "passed" and now[k] == "passed"),
        added=tuple(name(k) for k in sorted(set(now) - set(before))),
        removed=tuple(name(k) for k in sorted(set(before) - set(now))
                      if k[1] in current.get("checkpoints", {})),
    )
