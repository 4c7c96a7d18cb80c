"""Run one shell command and end it in exactly one of three ways.

The command runs as `bash -c` in its own process group, with stderr sent into the same pipe
as stdout, so the two arrive interleaved exactly as the program wrote them. It ends by
exiting, by running out of time, or by an abort, and the caller must be able to tell which:
the model reacts differently to "exit code 1" than to "timed out". On a timeout or an abort
the whole process group is killed, so `make` does not leave its compilers running. A process
left in the background is not waited for: the command ends when the shell does.
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


GRACE = 0.5  # seconds the pipe is still read after the shell has gone


async def run_command(
    command: str,
    cwd: Path,
    on_output: Callable[[bytes], None],
    signal: AbortSignal,
    timeout: float | None,
) -> Ending:
    """Run `command` to its end, feeding output chunks to `on_output` as they arrive.

    The end is the end of the shell, not of its output pipe: a process it left in the
    background (`server &`, or `setsid sleep 20 &`, out of reach of the group kill) may hold
    the pipe open for ever. So the pipe is made here, not by asyncio (whose `wait()` would
    wait for the pipe), and read for at most GRACE seconds once the shell is gone.
    """
    reading, writing = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
            stdout=writing, stderr=writing,
            start_new_session=True,  # its own process group, killable as a whole
        )
    except BaseException:
        os.close(reading)
        raise
    finally:
        os.close(writing)  # the children hold it now; EOF comes when the last one lets go
    started = asyncio.get_running_loop().time()
    output = await open_reader(reading)
    aborted = asyncio.Event()
    signal.on_abort(aborted.set)
    exited = asyncio.ensure_future(process.wait())
    stopped = asyncio.ensure_future(aborted.wait())
    drained = asyncio.ensure_future(_drain(output.reader, on_output))
    try:
        done, _ = await asyncio.wait(
            {exited, stopped, drained}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if drained in done and drained.exception() is not None:
            kill_group(process.pid)  # the output cannot be taken (its log cannot be written)
            await exited
            raise drained.exception()  # type: ignore[misc]
        if drained in done:  # the output ended first; the shell's end is what counts
            done, _ = await asyncio.wait(
                {exited, stopped}, timeout=remaining(timeout, started),
                return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            kill_group(process.pid)
            await exited
        await asyncio.wait({drained}, timeout=GRACE)
        if exited in done:
            return Ending("exit", exited.result())
        return Ending("aborted" if stopped in done else "timeout")
    finally:
        stopped.cancel()
        drained.cancel()
        output.transport.close()
        if process.returncode is None:  # we were cancelled ourselves: leave nothing behind
            kill_group(process.pid)
            exited.cancel()


def remaining(timeout: float | None, started: float) -> float | None:
    if timeout is None:
        return None
    return max(0.0, timeout - (asyncio.get_running_loop().time() - started))


@dataclass
class PipeReader:
    reader: asyncio.StreamReader
    transport: asyncio.BaseTransport


async def open_reader(descriptor: int) -> PipeReader:
    """An asyncio reader for the read end of a pipe (which it now owns and will close)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(descriptor, "rb", 0))
    return PipeReader(reader, transport)


async def _drain(reader: asyncio.StreamReader, on_output: Callable[[bytes], None]) -> None:
    while chunk := await reader.read(65536):
        on_output(chunk)


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(pid, signals.SIGKILL)
