"""The one error a session file can raise.

Every problem with a session (a broken line, a missing header, a failed write) becomes a
`SessionError` whose text is one line naming the file, and the line when there is one:
`session.jsonl:12: not valid JSON (…)`. A command line prints it as it is; a runtime can
show it to a person without a traceback.
"""

from __future__ import annotations


class SessionError(Exception):
    """A session file that cannot be read or written; the text says where and what."""
