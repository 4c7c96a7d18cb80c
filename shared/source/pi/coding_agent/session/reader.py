"""Step 09: opening a session file: every line parsed once, old versions migrated in memory.

Reading goes line by line: decode and validate the line in one pass (an old file's lines are
decoded, migrated to version 3, then validated), add the entry to the tree. Nothing is kept
twice, so a large file costs little more than its parsed entries. The file is never written: Pi rewrites an
old file when it opens it (and starts a fresh session over a file whose header it cannot
read); here an old file is migrated in memory only, and a bad file is an error that names
the line.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pi.coding_agent.session.entries import SessionEntry, SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import IdSource, sequential_ids
from pi.coding_agent.session.lines import (
    JsonLines,
    decode,
    entry_at,
    entry_from_bytes,
    header_at,
    no_header,
)
from pi.coding_agent.session.migrate import Migration, file_version
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
    with collector_paused():
        return read_lines(path, JsonLines(path), ids or sequential_ids())


def read_lines(path: Path, lines: JsonLines, ids: IdSource) -> LoadedSession:
    """Header first (migrated if old), then each entry: migrated, validated, added."""
    numbered = lines.raw()
    first = next(numbered, None)
    if first is None:
        raise no_header(path, lines.warnings)
    number, raw = first
    data = decode(raw, f"{path}:{number}")
    header = header_at(data, f"{path}:{number}")
    migration = Migration(file_version(header, f"{path}:{number}"), ids)
    if migration.needed:
        header = header_at(migration.header(data), f"{path}:{number}")
    tree = SessionTree()
    for number, raw in numbered:
        where = f"{path}:{number}"
        entry = (entry_at(migration.entry(decode(raw, where)), where) if migration.needed
                 else entry_from_bytes(raw, where))
        if entry.id in tree.by_id:
            raise SessionError(f"{path}:{number}: entry id {entry.id} is already used by an "
                               "earlier entry")
        tree.add(entry)
    return LoadedSession(path, header, tree, migration.version, tuple(lines.warnings))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a file loads, and keep it off what was loaded.

    Every object a load creates stays alive, yet the collector would scan them again and
    again as they pile up: reading 100,000 entries took more than twice as long with it
    running. Switching it back on is not enough: its next pass would still scan every one
    of them once, landing on whatever runs next (a tree walk took 2.3 s instead of 0.2 s).
    So what the load built is moved out of its reach (`gc.freeze`; entries hold no cycles,
    and plain reference counting still frees them). The collector is switched back on (if
    it was on) however the load ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
