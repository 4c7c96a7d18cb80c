"""Secrets never leave the request that needs them: every error text a provider makes passes
through `redact`, which masks a key in every form it may take (escaped, quoted, in part, cut)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import quote

MASK = "***"
CUT = "…"  # what `clip` puts where it cut a text
FRAGMENT = 8  # a run this long of a key's characters is the key, wherever it appears
EDGE = 4  # at a cut or at the ends of a text, this many of its first/last characters are


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut marked with `…` so `redact` can see it."""
    return text if len(text) <= limit else text[:limit] + CUT


def forms_of(secret: str) -> list[str]:
    """Every way `secret` may be written into a text, longest first."""
    forms = {secret, secret.strip()}
    for form in list(forms):
        forms |= {repr(form)[1:-1], json.dumps(form)[1:-1], quote(form, safe=""),
                  repr(form.encode("utf-8", "surrogatepass"))[2:-1]}
    return sorted((form for form in forms if form), key=len, reverse=True)


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with every form of every non-empty secret replaced by `***`."""
    for secret in filter(None, secrets):
        forms = forms_of(secret)
        for form in forms:
            text = text.replace(form, MASK)
        text = mask_fragments(text, forms)
        text = mask_edges(text, forms)
    return text


def mask_fragments(text: str, forms: list[str]) -> str:
    """Mask every run of FRAGMENT or more characters that also occurs in one of `forms`."""
    windows = {form[i:i + FRAGMENT] for form in forms for i in range(len(form) - FRAGMENT + 1)}
    spans: list[list[int]] = []
    for start in range(len(text) - FRAGMENT + 1):
        if text[start:start + FRAGMENT] in windows:
            if spans and start <= spans[-1][1]:
                spans[-1][1] = start + FRAGMENT
            else:
                spans.append([start, start + FRAGMENT])
    for start, end in reversed(spans):
        text = text[:start] + MASK + text[end:]
    return text


def mask_edges(text: str, forms: list[str]) -> str:
    """Mask a key's start where a text ends or was cut, and its end where a text begins."""
    for form in forms:
        for size in range(min(len(form), FRAGMENT) - 1, EDGE - 1, -1):
            head, tail = re.escape(form[:size]), re.escape(form[-size:])
            text = re.sub(f"{head}(?={re.escape(CUT)}|$)", MASK, text)
            text = re.sub(f"^{tail}", MASK, text)
    return text


def usable_key(key: str | None) -> str | None:
    """The key without the whitespace a paste leaves around it; whitespace or control
    characters inside are refused (a header cannot hold them) without showing the key."""
    if key is None:
        return None
    trimmed = key.strip()
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in trimmed):
        raise ValueError("the API key contains whitespace or control characters; "
                         "check how it was pasted or exported")
    return trimmed
