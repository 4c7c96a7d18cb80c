"""Json mode (`pi-agent --mode json "…"`): every event as one JSON line.

A program that wants to watch a run (an editor plugin, a CI log, an eval harness) reads
stdout line by line: first the session header, then each agent and runtime event in Pi's
shape (see events_json.py), ending with the run's `agent_end`. Nothing else is written to
stdout, so every line parses.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from pi.coding_agent.runtime.events import RuntimeEvent
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import dump_line
from pi.modes.events_json import entry_lookup, event_json
from pi.modes.print_mode import run_prompts, run_to_end
from pi.modes.rpc_io import JsonLines


async def stream_events(runtime: Runtime, prompts: Sequence[str], out: TextIO) -> int:
    lines = JsonLines(out)
    lines.write(dump_line(runtime.writer.header))

    def write(event: RuntimeEvent) -> None:
        lines.write(event_json(event, entry_lookup(runtime.writer.tree.by_id)))

    runtime.subscribe(write)
    await run_prompts(runtime, prompts)
    return 0


def run_json(runtime: Runtime, prompts: Sequence[str], out: TextIO | None = None,
             err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    return run_to_end(runtime, lambda: stream_events(runtime, prompts, out), err)
