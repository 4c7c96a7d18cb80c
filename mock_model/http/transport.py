"""httpx transports that answer requests from a MockModel without opening a socket.

`httpx.AsyncClient(transport=MockTransport(model))` lets a test drive real HTTP client code
(headers, status handling, SSE parsing) in-process and instantly. The sync variant serves
sync clients; it runs the async model on a private event loop, in a helper thread when the
calling thread already has a loop running.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx

from ..model import MockModel
from .router import respond
from .wire import WireResponse

T = TypeVar("T")


class _Chunks(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body delivered as the separate chunks the server would send."""

    def __init__(self, chunks: tuple[bytes, ...]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


def _to_httpx(reply: WireResponse, request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        reply.status, headers=list(reply.headers), stream=_Chunks(reply.chunks), request=request
    )


class MockTransport(httpx.AsyncBaseTransport):
    """Routes POST /v1/chat/completions and /v1/messages of an AsyncClient to `model`."""

    def __init__(self, model: MockModel) -> None:
        self.model = model

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        reply = await respond(self.model, request.method, request.url.path, body)
        return _to_httpx(reply, request)


class SyncMockTransport(httpx.BaseTransport):
    """The same routes for a sync `httpx.Client`; requests are answered one at a time."""

    def __init__(self, model: MockModel) -> None:
        self.model = model
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        with self._lock:
            reply = run_blocking(respond(self.model, request.method, request.url.path, body))
        return _to_httpx(reply, request)


def run_blocking(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()
