"""Glob patterns for `find` and `grep`, matched against paths relative to the search.

The rules are those of fd and ripgrep's `--glob`: a pattern without `/` (`*.py`) matches a
name at any depth; a pattern with `/` (`src/**/test_*.py`) matches the whole relative path,
where `*` and `?` stay within one folder and `**` spans any number of folders. `[abc]` and
`[!abc]` are character classes. Brace lists (`{a,b}`) are not supported.
"""

from __future__ import annotations

import re

PIECES = re.compile(r"(\*\*/|/\*\*$|\*\*|\*|\?|\[!?[^\]/]+\])")
TRANSLATION = {"**/": "(?:.*/)?", "/**": "(?:/.*)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def _piece(piece: str) -> str:
    if piece in TRANSLATION:
        return TRANSLATION[piece]
    if piece.startswith("[") and len(piece) > 2:
        inner = piece[1:-1]
        return "[^" + inner[1:] + "]" if inner.startswith("!") else "[" + inner + "]"
    return re.escape(piece)


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that `fullmatch`es the relative paths (with `/`) the glob selects."""
    body = "".join(_piece(piece) for piece in PIECES.split(pattern.removeprefix("/")) if piece)
    anywhere = "/" not in pattern.rstrip("/")
    return re.compile(("(?:.*/)?" if anywhere else "") + body.rstrip("/"))
