"""The MockModel's HTTP faces: OpenAI Chat Completions and Anthropic Messages on the wire.

The same scripts that drive `MockModel.stream` can answer real HTTP clients, so provider
code and official SDKs are tested against exact, reproducible wire traffic:

- in-process: `httpx.AsyncClient(transport=MockTransport(model))` (or `SyncMockTransport`);
- over a socket: `url, stop = serve_in_thread(model)`, or `python -m mock_model serve SCRIPT`.

Routes are `POST /v1/chat/completions` and `POST /v1/messages`; see docs/protocol.md.
"""

from .router import respond
from .server import MockServer, require_loopback, serve_in_thread
from .transport import MockTransport, SyncMockTransport
from .wire import WireResponse

__all__ = [
    "MockServer",
    "MockTransport",
    "SyncMockTransport",
    "WireResponse",
    "require_loopback",
    "respond",
    "serve_in_thread",
]
