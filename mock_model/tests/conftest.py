"""Fixtures for the HTTP tests: servers that are always stopped, even when a test fails."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from mock_model import MockModel
from mock_model.http import serve_in_thread

Serve = Callable[[MockModel], str]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """`serve(model)` starts a loopback server for `model` and returns its base URL."""
    stops: list[Callable[[], None]] = []

    def start(model: MockModel) -> str:
        url, stop = serve_in_thread(model)
        stops.append(stop)
        return url

    try:
        yield start
    finally:
        for stop in stops:
            stop()
