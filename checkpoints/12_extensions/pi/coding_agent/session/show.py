"""Two things every screen that shows a session needs: an entry's kind in one word, and text
from a session file made safe for a terminal."""

from __future__ import annotations

import re

from pi.coding_agent.session.entries import MessageEntry, SessionEntry


def entry_kind(entry: SessionEntry) -> str:
    """`message/user`, `compaction`, …"""
    return f"message/{entry.message.role}" if isinstance(entry, MessageEntry) else entry.type


UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` safe for a terminal: control characters (a title or clipboard escape) and lone
    surrogates shown escaped, as `\\x1b` or `\\ud800`."""
    return UNPRINTABLE.sub(lambda found: f"\\x{ord(found[0]):02x}" if ord(found[0]) < 0x100
                           else f"\\u{ord(found[0]):04x}", text)
