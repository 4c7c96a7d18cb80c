"""Two things every screen that shows a session needs: an entry's kind in one word, and text
from a session file made safe for a terminal."""

from __future__ import annotations

import re

from pi.coding_agent.session.entries import MessageEntry, SessionEntry


def entry_kind(entry: SessionEntry) -> str:
    """`message/user`, `compaction`, …"""
    return f"message/{entry.message.role}" if isinstance(entry, MessageEntry) else entry.type


UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str, keep: str = "") -> str:
    """`text` safe for a terminal: control characters (a title or clipboard escape) and lone
    surrogates shown escaped, as `\\x1b` or `\\ud800`; those in `keep` (a line break) stay."""
    def shown(char: str) -> str:
        if char in keep:
            return char
        return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    return UNPRINTABLE.sub(lambda found: shown(found[0]), text)
