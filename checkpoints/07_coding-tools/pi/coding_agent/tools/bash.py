"""`bash`, a shell command in the workspace, its output cut to the last 50 KB.

For a command, the end of the output matters most (the error, the summary line), so `bash`
keeps the last 2,000 lines or 50 KB. When it cuts, the full output is in a log file named in
the notice. A failure is reported by raising, like every tool failure: a non-zero exit code
(the output comes with it, since that is where the error message is), a timeout or an abort,
each with its own wording so the model can tell them apart.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.output import OutputCollector
from pi.coding_agent.tools.params import ToolParams
from pi.coding_agent.tools.process import Ending, run_command
from pi.coding_agent.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    TruncationResult,
    format_size,
)
from pi.coding_agent.tools.workspace import Workspace


class BashParams(ToolParams):
    command: str = Field(description="The bash command to run in the workspace folder")
    timeout: float | None = Field(None, gt=0, description="Seconds before it is killed (none)")


class BashTool(AgentTool[BashParams]):
    name = "bash"
    description = (
        "Run a bash command in the workspace folder; stdout and stderr come back merged. "
        f"Output is cut to the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024} KB; "
        "then the full output is saved to a file named in the notice. A non-zero exit code "
        "is an error. Optional timeout in seconds."
    )
    parameters = BashParams

    def __init__(self, workspace: Workspace, temp_dir: Path | None = None) -> None:
        self.workspace = workspace
        self.temp_dir = temp_dir

    def log_path(self, call_id: str) -> Path:
        """Where a long output goes: named after the call, so no randomness is needed."""
        folder = self.temp_dir or Path(tempfile.gettempdir())
        return folder / f"pi-bash-{re.sub(r'[^A-Za-z0-9_.-]', '_', call_id)}.log"

    async def execute(
        self, call_id: str, params: BashParams, signal: AbortSignal, on_update: ProgressCallback
    ) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Command aborted")  # never start a process for a dead call
        output = OutputCollector(self.log_path(call_id))

        def on_output(chunk: bytes) -> None:
            output.add(chunk)
            on_update(ToolResult.text(output.text()[-DEFAULT_MAX_BYTES:]))

        try:
            ending = await run_command(
                params.command, self.workspace.root, on_output, signal, params.timeout
            )
            truncation, log = output.finish()
        finally:
            output.close()
        text, details = output_text(truncation, log, output.last_line_bytes)
        return report(ending, text, details, params.timeout)


def output_text(
    truncation: TruncationResult, log: Path | None, last_line_bytes: int
) -> tuple[str, dict[str, Any] | None]:
    """The kept output, plus Pi's notice and details when something was cut."""
    if not truncation.truncated:
        return truncation.content, None
    details = {"truncation": truncation.to_details(), "fullOutputPath": str(log)}
    return f"{truncation.content}\n\n{notice(truncation, log, last_line_bytes)}", details


def report(
    ending: Ending, text: str, details: dict[str, Any] | None, timeout: float | None
) -> ToolResult:
    """The result of a clean exit; every other ending raises, with the output first."""
    if ending.how == "aborted":
        raise RuntimeError(_with_status(text, "Command aborted"))
    if ending.how == "timeout":
        raise TimeoutError(_with_status(text, f"Command timed out after {timeout:g} seconds"))
    text = text or "(no output)"
    if ending.exit_code is not None and ending.exit_code < 0:
        raise RuntimeError(f"{text}\n\nCommand was killed by signal {-ending.exit_code}")
    if ending.exit_code:
        raise RuntimeError(f"{text}\n\nCommand exited with code {ending.exit_code}")
    return ToolResult.text(text, details)


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def notice(truncation: TruncationResult, log: Path | None, last_line_bytes: int) -> str:
    """Pi's notice: which lines are shown, and where the rest is."""
    end = truncation.total_lines
    start = end - truncation.output_lines + 1
    if truncation.last_line_partial:
        shown, whole = format_size(truncation.output_bytes), format_size(last_line_bytes)
        return f"[Showing last {shown} of line {end} (line is {whole}). Full output: {log}]"
    limit = ""
    if truncation.truncated_by == "bytes":
        limit = f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
    return f"[Showing lines {start}-{end} of {end}{limit}. Full output: {log}]"
