"""Hostile tool arguments, straight from a model, to the seven coding tools.

The workspace holds links that lead out of it, a FIFO, a link to /dev/zero and a link
loop, and a link out and a FIFO at the names write and edit once gave every temporary file;
next to it is a folder with a secret. Whatever the arguments, a call must come back
(as a result or an error result) within its deadline, write nothing outside the workspace
and bring back nothing from outside it. bash is the exception by design (it is not a
sandbox, docs/hostile-input.md), so its cases only check that it ends when it must.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile.checks import KEY, make_outside, no_leak, outside_untouched, snapshot
from hostile.runner import Case, Check

ABSOLUTE_TARGET = Path("/tmp/pi-hostile-absolute-write.txt")
OUT = "../outside/secret.txt"


def workspace(check: Check) -> Path:
    make_outside(check)
    work = check.root / "work"
    (work / "sub").mkdir(parents=True)
    (work / "a.txt").write_text("hello\nTODO: fix\n")
    (work / "link").symlink_to(check.root / "outside" / "secret.txt")
    (work / "dirlink").symlink_to(check.root / "outside")
    (work / "zero").symlink_to("/dev/zero")
    (work / "loop").symlink_to(work)
    os.mkfifo(work / "fifo")
    (work / f".a.txt.{os.getpid()}.pi-write.tmp").symlink_to(check.root / "outside" / "secret.txt")
    os.mkfifo(work / f".b.txt.{os.getpid()}.pi-write.tmp")
    return work


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "read ../": ("read", {"path": OUT}),
    "read an absolute path outside": ("read", {"path": "/etc/hostname"}),
    "read a link out": ("read", {"path": "link"}),
    "read through a folder link out": ("read", {"path": "dirlink/secret.txt"}),
    "read a FIFO": ("read", {"path": "fifo"}),
    "read a link to /dev/zero": ("read", {"path": "zero"}),
    "read ~": ("read", {"path": "~/.bashrc"}),
    "read @../": ("read", {"path": "@" + OUT}),
    "read sub/../../": ("read", {"path": "sub/../../outside/secret.txt"}),
    "read with a NUL": ("read", {"path": "a.txt\x00.png"}),
    "read a 5,000-character name": ("read", {"path": "x" * 5000}),
    "read an empty path": ("read", {"path": ""}),
    "read the workspace itself": ("read", {"path": "."}),
    "read a lone surrogate path": ("read", {"path": "\ud800.txt"}),
    "read offset 0": ("read", {"path": "a.txt", "offset": 0}),
    "read offset 1e400": ("read", {"path": "a.txt", "offset": 1e400}),
    "read limit a string": ("read", {"path": "a.txt", "limit": "all"}),
    "read path a number": ("read", {"path": 5}),
    "read path null": ("read", {"path": None}),
    "read no arguments": ("read", {}),
    "read extra arguments": ("read", {"path": "a.txt", "sudo": True}),
    "write ../": ("write", {"path": "../outside/new.txt", "content": "x"}),
    "write an absolute path outside": ("write", {"path": str(ABSOLUTE_TARGET), "content": "x"}),
    "write through a link out": ("write", {"path": "link", "content": "overwritten"}),
    "write through a folder link out": ("write", {"path": "dirlink/new.txt", "content": "x"}),
    "write a FIFO": ("write", {"path": "fifo", "content": "x"}),
    "write a link to /dev/zero": ("write", {"path": "zero", "content": "x"}),
    "write the workspace folder": ("write", {"path": ".", "content": "x"}),
    "write a path ending in /": ("write", {"path": "sub/", "content": "x"}),
    "write a newline in the name": ("write", {"path": "a\nb.txt", "content": "x"}),
    "write a lone surrogate": ("write", {"path": "s.txt", "content": "half \ud800"}),
    "write 5 MB": ("write", {"path": "big.txt", "content": "y" * 5_000_000}),
    "write content a list": ("write", {"path": "c.txt", "content": ["x"]}),
    "write where a link out waits at the temporary name": (
        "write", {"path": "a.txt", "content": "overwritten"}),
    "write where a FIFO waits at the temporary name": ("write", {"path": "b.txt", "content": "x"}),
    "edit where a link out waits at the temporary name": (
        "edit", {"path": "a.txt", "edits": [{"oldText": "hello", "newText": "overwritten"}]}),
    "edit ../": ("edit", {"path": OUT, "edits": [{"oldText": "OUT", "newText": "IN"}]}),
    "edit through a link out": ("edit", {"path": "link", "edits": [{"oldText": "OUT",
                                                                   "newText": "IN"}]}),
    "edit a FIFO": ("edit", {"path": "fifo", "edits": [{"oldText": "a", "newText": "b"}]}),
    "edit no edits": ("edit", {"path": "a.txt", "edits": []}),
    "edit empty old text": ("edit", {"path": "a.txt", "edits": [{"oldText": "", "newText": "x"}]}),
    "edit overlapping": ("edit", {"path": "a.txt", "edits": [{"oldText": "hello\nTO",
                                                              "newText": "1"},
                                                             {"oldText": "TODO", "newText": "2"}]}),
    "edit edits a string": ("edit", {"path": "a.txt", "edits": "hello"}),
    "edit a lone surrogate": ("edit", {"path": "a.txt", "edits": [{"oldText": "hello",
                                                                   "newText": "\udfff"}]}),
    "bash: a grandchild in its own session keeps the pipe (timeout 2)": (
        "bash", {"command": "setsid sleep 12 & echo $! >> pids; sleep 12", "timeout": 2}),
    "bash: a background process is left running": (
        "bash", {"command": "sleep 12 & echo $! >> pids; echo done"}),
    "bash: 30 MB of output": ("bash", {"command": "head -c 30000000 /dev/zero | tr '\\0' x"}),
    "bash: invalid UTF-8 output": ("bash", {"command": "printf '\\xff\\xfe\\xed\\xa0\\x80'"}),
    "bash: timeout 0": ("bash", {"command": "true", "timeout": 0}),
    "bash: timeout 1e400": ("bash", {"command": "true", "timeout": 1e400}),
    "bash: timeout a string": ("bash", {"command": "true", "timeout": "soon"}),
    "bash: command a list": ("bash", {"command": ["ls"]}),
    "bash: a NUL in the command": ("bash", {"command": "echo a\x00b"}),
    "an unknown tool": ("rm", {"path": "/"}),
}
SLOW = {"bash: a grandchild in its own session keeps the pipe (timeout 2)": 8,
        "bash: a background process is left running": 6}


def run_call(check: Check, work: Path, tool: str, arguments: dict[str, Any]) -> Any:
    from pi.agent import ToolRegistry, run_tool_call
    from pi.ai import AbortSignal, ToolCall
    from pi.coding_agent import BashTool, EditTool, ReadTool, Workspace, WriteTool
    space = Workspace(work)
    logs = check.root / "logs"
    logs.mkdir(exist_ok=True)
    tools = [ReadTool(space), WriteTool(space), EditTool(space), BashTool(space, logs)]
    request = ToolCall(id="h1", name=tool, arguments=arguments)
    return asyncio.run(run_tool_call(ToolRegistry(tools), request, AbortSignal(),
                                     lambda _: None, lambda: 0))


def tool_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        import time
        tool, arguments = CALLS[name]
        work = workspace(check)
        before = snapshot(check.root / "outside")
        existed = ABSOLUTE_TARGET.exists()
        started = time.monotonic()
        message = run_call(check, work, tool, arguments)
        took = time.monotonic() - started
        texts = [getattr(block, "text", "") for block in message.content]
        if "Traceback" in "".join(texts):
            check.crash("the result shows a traceback")
        if tool != "bash":  # bash runs what it is told, inside or out (not a sandbox)
            outside_untouched(check, before, texts)
            no_leak(check, "the result", texts, KEY)
            if ABSOLUTE_TARGET.exists() and not existed:
                ABSOLUTE_TARGET.unlink()
                check.escape(f"wrote {ABSOLUTE_TARGET}")
        if name in SLOW and took > SLOW[name]:
            check.crash(f"took {took:.1f} s; it must end by {SLOW[name]} s")
        kill_leftovers(work / "pids")
    return run


def kill_leftovers(pids: Path) -> None:
    """End the `sleep 12` that the bash cases leave on purpose, by the ids they wrote."""
    if not pids.exists():
        return
    for pid in pids.read_text().split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), 9)


def cases() -> list[Case]:
    return [Case("tools", name, tool_case(name)) for name in CALLS]


__all__ = ["Path", "cases"]
