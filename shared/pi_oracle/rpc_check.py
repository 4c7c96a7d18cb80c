"""Part 2 of the differential suite: Pi's RpcClient against the course's rpc mode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from differential import run_node


def rpc_commands(modules: Path, checkpoint: Path, work: Path) -> tuple[int, list[str]]:
    """(how many documented commands were exercised, the disagreements)."""
    out = run_node("rpc_check.mjs", sys.executable, str(checkpoint), str(work), modules=modules,
                   timeout=300)
    answer = json.loads(out)
    return len(answer["commands"]), list(answer["problems"])
