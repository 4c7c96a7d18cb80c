"""`bash`: `bash -c` in its own process group (killed whole on a timeout or an abort),
stderr merged in, the output cut to its last 2,000 lines or 50 KB (the whole in a log file)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal as signals
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.tools.truncate import (DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncationResult,
                                            format_size, truncate)
from pi.coding_agent.tools.workspace import ToolParams, Workspace

GRACE = 0.5  # seconds the pipe is still read after the shell has gone


class BashParams(ToolParams):
    command: str = Field(description="The bash command to run in the workspace folder")
    timeout: float | None = Field(None, gt=0, description="Seconds before it is killed (none)")


class BashTool(AgentTool[BashParams]):
    name = "bash"
    description = ("Run a bash command in the workspace folder; stdout and stderr come back "
                   f"merged. Output is cut to the last {DEFAULT_MAX_LINES} lines or "
                   f"{DEFAULT_MAX_BYTES // 1024} KB; then the full output is saved to a file "
                   "named in the notice. A non-zero exit code is an error. Optional timeout in "
                   "seconds.")
    parameters = BashParams

    def __init__(self, workspace: Workspace, temp_dir: Path | None = None) -> None:
        self.workspace = workspace
        self.temp_dir = temp_dir or Path(tempfile.gettempdir())

    async def execute(self, call_id: str, params: BashParams, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Command aborted")  # never start a process for a dead call
        safe_id = re.sub(r"[^A-Za-z0-9_.-]", "_", call_id)  # the log is named after the call
        log_path = self.temp_dir / f"pi-bash-{safe_id}.log"
        with contextlib.closing(OutputCollector(log_path)) as output:
            def on_output(chunk: bytes) -> None:
                output.add(chunk)
                on_update(ToolResult.text(output.text()[-DEFAULT_MAX_BYTES:]))

            ending = await run_command(
                params.command, self.workspace.root, on_output, signal, params.timeout)
            cut, log = output.finish()
        if not cut.truncated:
            return report(ending, cut.content, None, params.timeout)
        end = cut.total_lines
        if cut.last_line_partial:
            shown, whole = format_size(cut.output_bytes), format_size(output.last_line_bytes)
            notice = f"Showing last {shown} of line {end} (line is {whole})"
        else:
            bytes_cut = cut.truncated_by == "bytes"
            why = f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if bytes_cut else ""
            notice = f"Showing lines {end - cut.output_lines + 1}-{end} of {end}{why}"
        details = {"truncation": cut.to_details(), "fullOutputPath": str(log)}
        return report(ending, f"{cut.content}\n\n[{notice}. Full output: {log}]", details,
                      params.timeout)


def report(ending: Ending, text: str, details: dict[str, Any] | None,
           timeout: float | None) -> ToolResult:
    """The result of a clean exit; every other ending raises, with the output first."""
    if ending.how != "exit":
        seconds = int(timeout) if timeout and timeout.is_integer() else timeout  # as JS prints
        status = ("Command aborted" if ending.how == "aborted"
                  else f"Command timed out after {seconds} seconds")
        error = RuntimeError if ending.how == "aborted" else TimeoutError
        raise error(f"{text}\n\n{status}" if text else status)
    text = text or "(no output)"
    if ending.exit_code:  # killed by signal N (-N here): 128 + N, as a shell and Pi say
        code = ending.exit_code if ending.exit_code > 0 else 128 - ending.exit_code
        raise RuntimeError(f"{text}\n\nCommand exited with code {code}")
    return ToolResult.text(text, details)


class OutputCollector:
    """A command's output in bounded memory: every byte and line counted (so "lines a-b of
    N" stays true, as in Pi 1.6), the last 100 KB kept, and once past 50 KB all of it logged."""

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.total_bytes = self.newlines = self.last_line_bytes = 0
        self.tail = bytearray()
        self.log: BinaryIO | None = None

    def add(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        cut = chunk.rfind(b"\n")  # the last line's size: since the last newline
        self.last_line_bytes = len(chunk) - cut - 1 if cut >= 0 else (
            self.last_line_bytes + len(chunk))
        self.tail += chunk
        if self.log is not None:
            self.log.write(chunk)
            del self.tail[: -2 * DEFAULT_MAX_BYTES]
        elif self.total_bytes > DEFAULT_MAX_BYTES:
            self.log = open(self.log_path, "wb")  # noqa: SIM115 - kept open across chunks
            self.log.write(self.tail)  # nothing was dropped before the log was opened

    def text(self) -> str:
        return self.tail.decode("utf-8", errors="replace")

    def finish(self) -> tuple[TruncationResult, Path | None]:
        """The truncated tail and the log's path (written now if lines alone were too many)."""
        result = truncate(self.text(), keep="tail")
        if not result.truncated:
            return result, None
        if self.log is None:
            self.log = open(self.log_path, "wb")  # noqa: SIM115
            self.log.write(self.tail)
        self.log.close()
        lines = self.newlines + (1 if self.last_line_bytes else 0)  # an unfinished last line
        return replace(result, total_lines=lines, total_bytes=self.total_bytes), self.log_path

    def close(self) -> None:
        if self.log is not None:
            self.log.close()


@dataclass(frozen=True)
class Ending:
    how: Literal["exit", "timeout", "aborted"]
    exit_code: int | None = None


async def run_command(command: str, cwd: Path, on_output: Callable[[bytes], None],
                      signal: AbortSignal, timeout: float | None) -> Ending:
    """Run `command` to its end, feeding output chunks to `on_output` as they arrive. The end
    is the shell's: a process left in the background (`server &`) may hold the pipe open for
    ever, so the pipe is made here and read for GRACE seconds once the shell is gone."""
    reading, writing = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
            stdout=writing, stderr=writing,
            start_new_session=True)  # its own process group, killable as a whole
    except BaseException:
        os.close(reading)
        raise
    finally:
        os.close(writing)  # the children hold it now; EOF comes when the last one lets go
    reader = asyncio.StreamReader()
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(reading, "rb", 0))

    async def drain() -> None:
        try:
            while chunk := await reader.read(65536):
                on_output(chunk)
        except Exception:
            kill_group(process.pid)  # the output cannot be taken (its log cannot be written)
            raise

    aborted = asyncio.Event()
    signal.on_abort(aborted.set)
    exited = asyncio.ensure_future(process.wait())
    stopped = asyncio.ensure_future(aborted.wait())
    drained = asyncio.ensure_future(drain())
    try:
        done, _ = await asyncio.wait(
            {exited, stopped}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            kill_group(process.pid)
            await exited
        await asyncio.wait({drained}, timeout=GRACE)
        if drained.done() and drained.exception() is not None:
            raise drained.exception()  # type: ignore[misc]
        if exited in done:
            return Ending("exit", exited.result())
        return Ending("aborted" if stopped in done else "timeout")
    finally:
        stopped.cancel()
        drained.cancel()
        transport.close()
        if process.returncode is None:  # we were cancelled ourselves: leave nothing behind
            kill_group(process.pid)
            exited.cancel()


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(pid, signals.SIGKILL)
