"""The one error a session file can raise: one line naming the file (and line), never a
traceback: `session.jsonl:12: not valid JSON (…)`."""

from __future__ import annotations


class SessionError(Exception):
    """A session file that cannot be read or written; the text says where and what."""
