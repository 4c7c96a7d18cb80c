"""A real local HTTP server for the MockModel, built on the standard library only.

Official SDKs bring their own HTTP stack and cannot be handed an httpx transport, so they
need a socket to talk to. The server binds to loopback only (a fake model has no business
on a network), answers one request at a time from the model, and streams SSE replies with
chunked transfer encoding, flushing each event so clients see a genuine stream.
"""

from __future__ import annotations

import ipaddress
import sys
import threading
from collections.abc import Callable
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ..model import MockModel
from .router import respond
from .transport import run_blocking
from .wire import WireResponse

DEFAULT_HOST = "127.0.0.1"
POLL_SECONDS = 0.02


class MockServer(ThreadingHTTPServer):
    """Serves `model` on host:port (port 0 picks a free one); see `url` for where."""

    daemon_threads = True

    def __init__(self, model: MockModel, host: str = DEFAULT_HOST, port: int = 0) -> None:
        require_loopback(host)
        super().__init__((host, port), _Handler)
        self.model = model
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up early is normal for a test server; only report real bugs."""
        if not isinstance(sys.exception(), ConnectionError):
            super().handle_error(request, client_address)

    def answer(self, method: str, path: str, body: bytes) -> WireResponse:
        """One request at a time, so request k still gets turn k under concurrency."""
        with self._lock:
            return run_blocking(respond(self.model, method, path, body))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version, sys_version = "mock_model", ""
    timeout = 30  # idle keep-alive connections give up instead of holding a thread forever
    server: MockServer

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The `Date` header from the model's fake clock: no wall-clock time in responses."""
        return formatdate(self.server.model.clock.now_ms() / 1000, usegmt=True)

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: object) -> None:
        """Silent: test output and the CLI's stdout must stay clean."""

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        reply = self.server.answer(self.command, urlsplit(self.path).path, body)
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.streaming:
            self._send_chunked(reply.chunks)
        else:
            self._send_whole(b"".join(reply.chunks))

    def _send_whole(self, body: bytes) -> None:
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_chunked(self, chunks: tuple[bytes, ...]) -> None:
        """One HTTP chunk per SSE event, flushed at once, then the terminating empty chunk."""
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def require_loopback(host: str) -> None:
    """Refuse any address but IPv4 loopback (127.0.0.0/8) or the name `localhost`."""
    if host == "localhost":
        return
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None or address.version != 4 or not address.is_loopback:
        raise ValueError(f"the mock server only binds to loopback, not {host!r}")


def serve_in_thread(
    model: MockModel, port: int = 0, host: str = DEFAULT_HOST
) -> tuple[str, Callable[[], None]]:
    """Start a server in a daemon thread; returns its base URL and an idempotent `stop`."""
    server = MockServer(model, host, port)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
    )
    thread.start()
    stopped = threading.Event()

    def stop() -> None:
        if stopped.is_set():
            return
        stopped.set()
        server.shutdown()
        server.server_close()
        thread.join()

    return server.url, stop
