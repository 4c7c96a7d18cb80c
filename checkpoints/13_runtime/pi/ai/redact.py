"""Step 04: secrets never leave the request that needs them.

An API key belongs in one place, the `Authorization` header. Error texts are another matter:
they are shown to people, written into session files and pasted into bug reports, and a server
may echo what it was sent. So every error text a provider makes passes through `redact` first.
"""

from __future__ import annotations

from collections.abc import Iterable

MASK = "***"


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every occurrence of every non-empty secret replaced by `***`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return text
