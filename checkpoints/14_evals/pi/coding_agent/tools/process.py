"""Step 07: run one shell command and end it in exactly one of three ways.

The command runs as `bash -c` in its own process group, with stderr sent into the same pipe
as stdout, so the two arrive interleaved exactly as the program wrote them. It ends by
exiting, by running out of time, or by an abort, and the caller must be able to tell which:
the model reacts differently to "exit code 1" than to "timed out". On a timeout or an abort
the whole process group is killed, so `make` does not leave its compilers running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal as signals
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi.ai import AbortSignal


@dataclass(frozen=True)
class Ending:
    how: Literal["exit", "timeout", "aborted"]
    exit_code: int | None = None


async def run_command(
    command: str,
    cwd: Path,
    on_output: Callable[[bytes], None],
    signal: AbortSignal,
    timeout: float | None,
) -> Ending:
    """Run `command` to its end, feeding output chunks to `on_output` as they arrive."""
    process = await asyncio.create_subprocess_exec(
        "bash", "-c", command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # its own process group, killable as a whole
    )
    aborted = asyncio.Event()
    signal.on_abort(aborted.set)
    finished = asyncio.ensure_future(_drain(process, on_output))
    stopped = asyncio.ensure_future(aborted.wait())
    try:
        done, _ = await asyncio.wait(
            {finished, stopped}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if finished in done:
            return Ending("exit", finished.result())
        kill_group(process.pid)
        await finished
        return Ending("aborted" if stopped in done else "timeout")
    finally:
        stopped.cancel()
        if process.returncode is None:  # we were cancelled ourselves: leave nothing behind
            kill_group(process.pid)
            finished.cancel()


async def _drain(process: asyncio.subprocess.Process, on_output: Callable[[bytes], None]) -> int:
    assert process.stdout is not None
    while chunk := await process.stdout.read(65536):
        on_output(chunk)
    return await process.wait()


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(pid, signals.SIGKILL)
