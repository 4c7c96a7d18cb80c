"""How long `pi-agent -p` takes on a huge tool call that arrives a byte at a time.

A loopback server (127.0.0.1, a port the system picks) answers the OpenAI-compatible request
with one reply: a `write` call whose arguments are 1 MB of JSON, in 100-character deltas as a
server sends them, every byte of the stream written by a send of its own. The second
request, after the tool ran, gets a short text. The figure is the wall time of the whole
`pi-agent -p` run (no target: `benchmarks/run.py` judges the loop and sessions). A third run
sends the arguments in 1-character deltas in one send: a million events, each through the
provider, the loop, the agent, the runtime and print mode. The server's socket is as sockets
come (the kernel may join bytes sent close together); the same run with TCP_NODELAY, where
most reads bring a few bytes each, is shown beside it: there the time goes to
httpx's cost per read, not to assembling the reply, which is linear in its size however it
is split (docs/hostile-input.md, "Bounds"). Beside the million-event run stands its floor:
the same stream read by httpx-sse and json.loads alone, with no agent at all (on the
machine this course was built on, 6 to 11 s: 146 MB of SSE), and the ratio between them.
Nothing is asserted: machines differ; the exit code says only whether every run completed.

    python benchmarks/stream_bench.py            # 1 MB
    python benchmarks/stream_bench.py --size 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def sse(*chunks: object) -> bytes:
    return "".join([f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]).encode()


def delta(**fields: object) -> dict[str, object]:
    finish = fields.pop("finish", None)
    return {"id": "bench", "choices": [{"index": 0, "delta": fields, "finish_reason": finish}]}


def big_call(size: int, piece: int = 100) -> bytes:
    arguments = json.dumps({"path": "big.txt", "content": "x" * size})
    first = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "write", "arguments": ""}}
    pieces = [delta(tool_calls=[{"index": 0, "function": {"arguments": arguments[i:i + piece]}}])
              for i in range(0, len(arguments), piece)]
    return sse(delta(tool_calls=[first]), *pieces, delta(finish="tool_calls"))


def serve(listener: socket.socket, replies: list[bytes], nodelay: bool, bytewise: bool) -> None:
    """Answer one request per reply, each byte of the body in a send of its own (or, not
    `bytewise`, the body in one send)."""
    for body in replies:
        connection, _ = listener.accept()
        with connection:
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, int(nodelay))
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head, _, rest = request.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(rest) < length:
                rest += connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                               b"connection: close\r\n\r\n")
            step = 1 if bytewise else len(body)
            for index in range(0, len(body), step):
                connection.sendall(body[index:index + step])


def run_once(command: str, size: int, nodelay: bool, piece: int = 100) -> tuple[bool, float]:
    """One `pi-agent -p` run against a fresh server; prints its line; whether it wrote the
    whole file, and its seconds."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    replies = [big_call(size, piece), sse(delta(content="done"), delta(finish="stop"))]
    threading.Thread(target=serve, args=(listener, replies, nodelay, piece > 1),
                     daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="stream-bench-") as scratch:
        env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
               "OPENAI_API_KEY": "sk-bench"}
        started, before = time.perf_counter(), os.times()
        done = subprocess.run([command, "-p", "--model", "openai/gpt-bench", "--cwd", scratch,
                               "--agent-dir", str(Path(scratch) / "agent"), "write it"],
                              env=env, capture_output=True, text=True, timeout=300)
        took, after = time.perf_counter() - started, os.times()
        written = (Path(scratch) / "big.txt").stat().st_size if done.returncode == 0 else 0
    listener.close()
    cpu = after.children_user + after.children_system - before.children_user \
        - before.children_system
    ok = done.returncode == 0 and written == size
    how = "with TCP_NODELAY" if nodelay else "a send per byte" if piece > 1 else "one send"
    how += f", {piece}-character deltas"
    print(f"  {size:,} bytes of arguments, {len(replies[0]):,} bytes of stream, {how}: "
          f"{took:.1f} s, pi-agent's CPU {cpu:.1f} s")
    if not ok:
        print(f"  the run failed (exit {done.returncode}, wrote {written:,} bytes): "
              f"{done.stderr.strip()[-300:]}")
    return ok, took


def sse_floor(size: int) -> float:
    """Seconds httpx-sse and json.loads alone take to read the 1-character-delta stream."""
    import httpx
    from httpx_sse import EventSource

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    threading.Thread(target=serve, args=(listener, [big_call(size, 1)], False, False),
                     daemon=True).start()

    async def read_all() -> None:
        async with httpx.AsyncClient() as client, \
                client.stream("POST", f"http://127.0.0.1:{port}/v1", json={}) as response:
            async for event in EventSource(response).aiter_sse():
                if event.data != "[DONE]":
                    json.loads(event.data)

    started = time.perf_counter()
    asyncio.run(read_all())
    listener.close()
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of arguments")
    size = parser.parse_args(argv).size
    command = shutil.which("pi-agent")
    print(f"\nStream: pi-agent -p on a {size:,}-byte tool call sent a byte at a time")
    if command is None:
        print("  pi-agent is not installed (pip install -e .): skipped")
        return 1
    ok, _ = run_once(command, size, nodelay=False)
    ok &= run_once(command, size, nodelay=True)[0]
    done, took = run_once(command, size, nodelay=False, piece=1)  # a million events
    ok &= done
    floor = sse_floor(size)
    print(f"  the same million-event stream read by httpx-sse and json.loads alone: {floor:.1f} s;"
          f" pi-agent takes {took / floor:.1f}x that (shown)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
