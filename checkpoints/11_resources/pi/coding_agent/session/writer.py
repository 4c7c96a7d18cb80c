"""Writing a session file: append-only, one line per entry, and nothing after a failure.

Every entry becomes one line, written and flushed the moment it is appended (Pi waits for
the first assistant reply before it writes anything; writing at once means a crash loses
nothing that happened). A new entry is a child of the current leaf and becomes the leaf;
`branch` only moves the leaf, so the next entry starts a new branch and no line is changed.
If a write fails (a full disk, a file that became read-only), the writer refuses every later
write with the same error: a file with a hole in its history is worse than a short one. The
lines before the failure stay readable; a half-written last line is ignored when read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, cast

from pi.ai.messages import json_text
from pi.coding_agent.session.appends import Base, EntryAppends
from pi.coding_agent.session.context import SessionContext, build_context
from pi.coding_agent.session.entries import (
    BranchSummaryEntry,
    SessionEntry,
    SessionHeader,
    dump_line,
)
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import Clock, IdSource, fresh_id, iso_timestamp
from pi.coding_agent.session.reader import LoadedSession
from pi.coding_agent.session.tree import SessionTree

Opener = Callable[[Path, str], TextIO]


def open_text(path: Path, mode: str) -> TextIO:
    """Open for writing: UTF-8, and `\\n` stays `\\n` on every system."""
    return cast(TextIO, path.open(mode, encoding="utf-8", newline="\n"))


class SessionWriter(EntryAppends):
    """Appends entries to one session file; `tree` and `leaf_id` follow what was written."""

    def __init__(self, path: Path, file: TextIO, header: SessionHeader, tree: SessionTree,
                 *, ids: IdSource, clock: Clock, opener: Opener = open_text,
                 sync: Callable[[TextIO], None] | None = None) -> None:
        self.path, self.header, self.tree = path, header, tree
        self.leaf_id: str | None = tree.leaf_on_load
        self.ids, self.clock, self.opener, self.sync = ids, clock, opener, sync
        self._file = file
        self._failure: Exception | None = None

    @classmethod
    def create(cls, path: Path, header: SessionHeader, *, ids: IdSource, clock: Clock,
               opener: Opener = open_text, sync: Callable[[TextIO], None] | None = None,
               ) -> SessionWriter:
        """Start a new file (it must not exist yet) and write its header line."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            file = opener(path, "x")
        except OSError as error:
            raise SessionError(f"{path}: {error.strerror or error}") from None
        writer = cls(path, file, header, SessionTree(), ids=ids, clock=clock, opener=opener,
                     sync=sync)
        writer.write_line(header)
        return writer

    @classmethod
    def resume(cls, session: LoadedSession, *, ids: IdSource, clock: Clock,
               opener: Opener = open_text, sync: Callable[[TextIO], None] | None = None,
               ) -> SessionWriter:
        """Append to a file just read; the writer takes over its tree, leaf = the last entry."""
        if session.migrated:
            raise SessionError(f"{session.path}: a version {session.file_version} file is not "
                               "appended to; write a migrated copy with migrate_file first")
        if session.warnings:
            raise SessionError(f"{session.path}: ends with an unfinished line; not appended to")
        try:
            file = opener(session.path, "a")
        except OSError as error:
            raise SessionError(f"{session.path}: {error.strerror or error}") from None
        return cls(session.path, file, session.header, session.tree, ids=ids, clock=clock,
                   opener=opener, sync=sync)

    def write_line(self, item: SessionHeader | SessionEntry) -> None:
        """One JSON line, written and flushed; any failure closes the writer for good."""
        self.write_text(json_text(dump_line(item)) + "\n")  # a lone surrogate is escaped

    def write_text(self, line: str) -> None:
        """Write one finished line and flush it; any failure closes the writer for good."""
        if self._failure is not None:
            raise SessionError(f"{self.path}: nothing more is written after a failed write "
                               f"({describe(self._failure)})") from self._failure
        try:
            self._file.write(line)
            self._file.flush()
            if self.sync is not None:
                self.sync(self._file)
        except Exception as error:
            self._failure = error
            raise SessionError(f"{self.path}: write failed ({describe(error)}); the writer "
                               "is closed") from error

    def append(self, entry: SessionEntry) -> str:
        """Write a complete entry (its id must be new); it becomes the leaf. Returns its id."""
        if entry.id in self.tree.by_id:
            raise SessionError(f"{self.path}: entry id {entry.id} is already used")
        self.write_line(entry)
        self.tree.add(entry)
        self.leaf_id = entry.id
        return entry.id

    def append_copy(self, entry: SessionEntry, line: bytes | None) -> str:
        """Append an entry read from another file as the very `line` it was there (a fork
        keeps every byte, fields this course does not know included); an entry without a
        line (made here, or migrated) is written like any new entry."""
        if line is None:
            return self.append(entry)
        if entry.id in self.tree.by_id:
            raise SessionError(f"{self.path}: entry id {entry.id} is already used")
        self.write_text(line.decode("utf-8"))
        self.tree.add(entry, line)
        self.leaf_id = entry.id
        return entry.id

    def next_base(self) -> Base:
        """A fresh id, the current leaf as parent, and the clock's time."""
        return Base(id=fresh_id(self.ids, self.tree.by_id), parent_id=self.leaf_id,
                    timestamp=iso_timestamp(self.clock()))

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf (None = before the first entry); nothing is written."""
        if entry_id is not None:
            self.require(entry_id)
        self.leaf_id = entry_id

    def branch_with_summary(self, from_id: str | None, summary: str, details: Any = None,
                            from_hook: bool | None = None) -> str:
        """Move the leaf to `from_id` and append a summary of the branch left behind there."""
        self.branch(from_id)
        return self.append(BranchSummaryEntry(from_id=from_id or "root", summary=summary,
                                              details=details, from_hook=from_hook,
                                              **self.next_base()))

    def require(self, entry_id: str) -> SessionEntry:
        entry = self.tree.by_id.get(entry_id)
        if entry is None:
            raise SessionError(f"{self.path}: no entry with id {entry_id}")
        return entry

    def context(self) -> SessionContext:
        return build_context(self.tree, self.leaf_id)

    def close(self) -> None:
        """Close the file; a failure here is reported like a failed write."""
        try:
            self._file.close()
        except Exception as error:
            self._failure = self._failure or error
            raise SessionError(f"{self.path}: closing failed ({describe(error)})") from error


def describe(error: Exception) -> str:
    strerror = getattr(error, "strerror", None)
    return str(strerror) if strerror else str(error) or type(error).__name__
