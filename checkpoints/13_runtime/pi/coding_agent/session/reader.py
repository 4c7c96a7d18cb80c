"""Opening a session file: every line decoded and validated once, old versions migrated.

Each line is decoded (by the bounded JSON reader) and validated with the entry models, then
the tree is built from those entries: a bad file is an error naming the first bad line,
never half a tree. A version-3 file is read line by line, so only one line's decoded JSON
is alive at a time; an older file is decoded whole first, because Pi's migration works on
the whole list (a v1 compaction names the entry it keeps by its position).

The file is never written: Pi rewrites an old file when it opens it (and starts a fresh
session over a file whose header it cannot read); here an old file is migrated in memory
only, and a bad file is an error that names the line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi.coding_agent.session.entries import CURRENT_VERSION, SessionEntry, SessionHeader
from pi.coding_agent.session.ids import IdSource, sequential_ids
from pi.coding_agent.session.lines import (
    Line,
    committed_lines,
    decode,
    entry_at,
    header_at,
    no_header,
)
from pi.coding_agent.session.migrate import file_version, migrate
from pi.coding_agent.session.tree import SessionTree


@dataclass(frozen=True)
class LoadedSession:
    """A session file as read: its header (as version 3), the tree, and what was noticed."""

    path: Path
    header: SessionHeader
    tree: SessionTree
    file_version: int
    warnings: tuple[str, ...] = ()

    @property
    def entries(self) -> list[SessionEntry]:
        return self.tree.entries

    @property
    def migrated(self) -> bool:
        """True when the file is older than version 3 and was migrated while reading."""
        return self.file_version != self.header.version


def read_session(path: Path, ids: IdSource | None = None) -> LoadedSession:
    """Read and validate a whole session file; raise SessionError naming `file:line`.

    `ids` gives the ids a version-1 file's entries receive; by default they count up from
    00000001, so reading the same old file twice gives the same ids.
    """
    warnings: list[str] = []
    lines = committed_lines(path, warnings)
    if not lines:
        raise no_header(path, warnings)
    where = f"{path}:{lines[0][0]}"
    first = decode(lines[0][1], where)
    header = header_at(first, where)
    version = file_version(header, where)
    tree = SessionTree()
    if version == CURRENT_VERSION:
        for number, raw in lines[1:]:
            entry_where = f"{path}:{number}"
            tree.add(entry_at(decode(raw, entry_where), entry_where), raw, entry_where)
    else:
        items = [first, *decoded(path, lines[1:])]
        migrate(items, version, ids or sequential_ids())
        header = header_at(items[0], where)
        for (number, _), item in zip(lines[1:], items[1:], strict=True):
            entry_where = f"{path}:{number}"
            tree.add(entry_at(item, entry_where), None, entry_where)  # its line is old
    return LoadedSession(path, header, tree, version, tuple(warnings))


def decoded(path: Path, lines: Iterable[Line]) -> list[Any]:
    """The JSON of each line, in file order; the first that is not JSON is named."""
    return [decode(raw, f"{path}:{number}") for number, raw in lines]
