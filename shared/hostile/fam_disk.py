"""Disk faults: writes that fail (a full disk, an I/O error, a torn line), a file size
limit hit mid-run, folders that cannot be made.

After a failed write, nothing more is written (a hole in a history is worse than a short
one), the bytes already in the file are unchanged, and every message written before the
fault reads back. A tool whose write fails leaves the file as it was. The user hears one
clear line, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import resource
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from hostile.checks import clean_cli, invoke, one_error_line, plain
from hostile.runner import Case, Check


class FaultyFile:
    """A text file whose `fail_at`-th write (1-based) fails the way `how` says."""

    def __init__(self, file: TextIO, fail_at: int, how: str) -> None:
        self.file, self.fail_at, self.how, self.writes = file, fail_at, how, 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes == self.fail_at:
            if self.how == "torn line":
                self.file.write(text[: len(text) // 2])
                self.file.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            if self.how != "flush":
                code = {"ENOSPC": errno.ENOSPC, "EIO": errno.EIO, "EDQUOT": errno.EDQUOT}[self.how]
                raise OSError(code, f"simulated {self.how}")
        return self.file.write(text)

    def flush(self) -> None:
        if self.how == "flush" and self.writes == self.fail_at:
            raise OSError(errno.EIO, "Input/output error")
        self.file.flush()

    def close(self) -> None:
        self.file.close()

    def fileno(self) -> int:
        return self.file.fileno()


def faulty_opener(fail_at: int, how: str) -> Callable[[Path, str], Any]:
    from pi.coding_agent.session.writer import open_text
    return lambda path, mode: FaultyFile(open_text(path, mode), fail_at, how)


def messages_in(path: Path) -> list[str] | None:
    from pi.coding_agent.session.entries import SessionError
    from pi.coding_agent.session.reader import read_session
    try:
        session = read_session(path)
    except SessionError:
        return None
    return [json.dumps(entry.message.model_dump(mode="json", by_alias=True))
            for entry in session.entries if getattr(entry, "message", None) is not None]


def runtime_config(check: Check, opener: Any = None, turns: int = 3) -> Any:
    from mock_model import MockModel, script_from_data
    from pi.ai.model import Model
    from pi.ai.providers.mock import MockProvider
    from pi.ai.registry import Providers
    from pi.coding_agent.runtime.config import RuntimeConfig
    from pi.coding_agent.session.entries import fixed_clock, sequential_ids
    from pi.coding_agent.session.writer import open_text
    data = {"turns": [{"parts": [{"text": "reading"}, {"toolCall": {"name": "ls", "arguments": {}}}]}] * (turns - 1)
            + [{"text": "all done " + "z" * 3000}]}
    model = MockModel(script_from_data(data))
    (check.root / "work").mkdir(exist_ok=True)
    return RuntimeConfig(
        cwd=check.root / "work", model=Model(id="mock-1", api="mock", provider="mock"),
        providers=Providers({"mock": MockProvider(model)}), clock=fixed_clock(1_767_225_600_000),
        ids=sequential_ids(), session_file=check.root / "s.jsonl", agent_dir=check.root / "agent",
        system_prompt="test", opener=opener or open_text, auto_retry=False)


def run_prompt(config: Any) -> BaseException | None:
    from pi.coding_agent.runtime.runtime import Runtime

    async def go() -> None:
        runtime = Runtime(config)
        try:
            await runtime.prompt("list the files")
            await runtime.flush()
        finally:
            with contextlib.suppress(Exception):
                await runtime.close()

    try:
        asyncio.run(go())
    except Exception as error:  # the runtime reports a failed write by raising; that is fine
        return error
    return None


def writer_fault(fail_at: int, how: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.coding_agent.session.entries import SessionError
        clean = runtime_config(check)
        run_prompt(clean)
        complete = (check.root / "s.jsonl").read_bytes()
        (check.root / "s.jsonl").unlink()
        error = run_prompt(runtime_config(check, faulty_opener(fail_at, how)))
        path = check.root / "s.jsonl"
        data = path.read_bytes() if path.exists() else b""
        if error is None:
            check.crash(f"write {fail_at} failed ({how}) and nobody was told")
        elif not isinstance(error, SessionError | RuntimeError):
            check.crash(f"{type(error).__name__}: {error}")
        else:
            plain(check, "the error", [str(error)])
            if "s.jsonl" not in str(error):
                check.crash(f"the error does not name the file: {error}")
        whole_lines = data[: data.rfind(b"\n") + 1]
        if not complete.startswith(whole_lines):
            check.lost("the lines before the fault differ from a clean run's")
        if whole_lines and messages_in(path) is None:
            check.lost("after the fault, the file no longer opens")
    return run


@contextlib.contextmanager
def file_size_limit(size: int) -> Iterator[None]:
    """Every file this process writes may grow to `size` bytes; past that, EFBIG."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def full_disk_run(limit: int) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        with file_size_limit(limit):
            error = run_prompt(runtime_config(check, turns=4))
        path = check.root / "s.jsonl"
        if error is not None:
            plain(check, "the error", [str(error)])
        if path.exists() and messages_in(path) is None:
            check.lost("the session file no longer opens after the disk filled up")
    return run


def tool_on_full_disk(tool: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.agent import ToolRegistry, run_tool_call
        from pi.ai import AbortSignal, ToolCall
        from pi.coding_agent import EditTool, Workspace, WriteTool
        work = check.root / "work"
        work.mkdir()
        original = "keep me\n" * 100
        (work / "a.txt").write_text(original)
        space = Workspace(work)
        arguments = ({"path": "a.txt", "content": "n" * 100_000} if tool == "write" else
                     {"path": "a.txt", "edits": [{"oldText": "keep me", "newText": "m" * 100_000}]})
        request = ToolCall(id="d1", name=tool, arguments=arguments)
        with file_size_limit(20_000):
            message = asyncio.run(run_tool_call(ToolRegistry([WriteTool(space), EditTool(space)]),
                                                request, AbortSignal(), lambda _: None, lambda: 0))
        if not message.is_error:
            check.crash("a write past the size limit was reported as done")
        if (work / "a.txt").read_text() != original:
            check.lost("a failed write changed the file")
        leftovers = [p.name for p in work.iterdir() if p.name != "a.txt"]
        if leftovers:
            check.crash(f"a failed write left files behind: {leftovers}")
    return run


def bash_log_unwritable(check: Check) -> None:
    from pi.agent import ToolRegistry, run_tool_call
    from pi.ai import AbortSignal, ToolCall
    from pi.coding_agent import BashTool, Workspace
    work = check.root / "work"
    work.mkdir()
    blocker = check.root / "logs"
    blocker.write_text("a file where the log folder should be")
    tool = BashTool(Workspace(work), temp_dir=blocker / "sub")
    request = ToolCall(id="b1", name="bash", arguments={"command": "seq 1 100000"})
    message = asyncio.run(run_tool_call(ToolRegistry([tool]), request, AbortSignal(),
                                        lambda _: None, lambda: 0))
    text = "".join(getattr(block, "text", "") for block in message.content)
    if "Traceback" in text:
        check.crash("the result shows a traceback")
    if not message.is_error and "100000" not in text:
        check.lost("the output's tail was lost because its log could not be written")
    if message.is_error and "logs" not in text:
        check.crash(f"the error does not say which log failed: {text[-200:]!r}")


def cli_case(where: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.modes.main import app
        blocker = check.root / "file"
        blocker.write_text("x")
        script = check.root / "script.json"
        script.write_text(json.dumps({"turns": [{"text": "hi"}]}))
        (check.root / "work").mkdir()
        args = ["-p", "hi", "--script", str(script), "--cwd", str(check.root / "work"),
                "--agent-dir", str(check.root / "agent")]
        if where == "session":
            args += ["--session", str(blocker / "s.jsonl")]
        else:
            args[-1] = str(blocker)
        code, out, err, escaped = invoke(app, args)
        clean_cli(check, "pi-agent", code, out, err, escaped, allowed=(2,))
        if code == 2:
            one_error_line(check, "pi-agent", err, str(blocker))
    return run


def cases() -> list[Case]:
    found = [Case("disk", f"session write {n} fails: {how}", writer_fault(n, how))
             for how in ("ENOSPC", "EIO", "EDQUOT", "flush", "torn line") for n in (1, 2, 4, 6)]
    found += [Case("disk", f"the disk fills up at {limit // 1000} KB during a run",
                   full_disk_run(limit)) for limit in (2_000, 6_000, 9_000)]
    found += [Case("disk", f"{tool} past the file size limit", tool_on_full_disk(tool))
              for tool in ("write", "edit")]
    found.append(Case("disk", "bash output whose log cannot be written", bash_log_unwritable))
    found.append(Case("disk", "--session inside a file", cli_case("session")))
    found.append(Case("disk", "--agent-dir is a file", cli_case("agent")))
    return found
