"""Step 09: opening a session file: every line checked once, old versions migrated in memory.

Every line is validated before the session is handed out: a bad file is an error naming the
line, never half a tree. But not every line becomes a full entry at once. A context for the
last leaf only shows what came after the latest compaction on its path, so the reader goes
backwards from the end along that path and builds entries until it passes the compaction's
first kept entry; the older lines are checked against the same shape (shape.py) and kept as
bytes, and built the first time somebody asks for them. A long session thus costs about
what decoding its JSON costs, in time and in memory.

The file is never written: Pi rewrites an old file when it opens it (and starts a fresh
session over a file whose header it cannot read); here an old file is migrated in memory
only (each of its lines becomes an entry at once), and a bad file is an error that names
the line.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pi.coding_agent.session.entries import SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import IdSource, sequential_ids
from pi.coding_agent.session.lines import JsonLines, decode, entry_at, header_at, no_header
from pi.coding_agent.session.migrate import Migration, file_version
from pi.coding_agent.session.nodes import EntryList, Node
from pi.coding_agent.session.read_back import read_nodes
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
    def entries(self) -> EntryList:
        return self.tree.entries

    @property
    def migrated(self) -> bool:
        """True when the file is older than version 3 and was migrated while reading."""
        return self.file_version != self.header.version


FREEZE_FROM = 10_000  # entries; below this the collector's one pass costs a few milliseconds


def read_session(path: Path, ids: IdSource | None = None) -> LoadedSession:
    """Read and validate a whole session file; raise SessionError naming `file:line`.

    `ids` gives the ids a version-1 file's entries receive; by default they count up from
    00000001, so reading the same old file twice gives the same ids.
    """
    with collector_paused():
        session = read_lines(path, JsonLines(path), ids or sequential_ids())
    if len(session.tree.nodes) >= FREEZE_FROM and gc.isenabled():
        gc.freeze()  # see collector_paused
    return session


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
    tree = SessionTree()
    if migration.needed:
        header = header_at(migration.header(data), f"{path}:{number}")
        for number, raw in numbered:
            where = f"{path}:{number}"
            add(tree, Node.of(entry_at(migration.entry(decode(raw, where)), where),
                              number=number), path)
    else:
        for node in read_nodes(str(path), list(numbered)):
            add(tree, node, path)
    return LoadedSession(path, header, tree, migration.version, tuple(lines.warnings))


def add(tree: SessionTree, node: Node, path: Path) -> None:
    if node.id in tree.node_of:
        raise SessionError(f"{path}:{node.number}: entry id {node.id} is already used by an "
                           "earlier entry")
    tree.add_node(node)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a file loads.

    Every object a load creates stays alive, yet the collector would scan them again and
    again as they pile up: reading 100,000 entries took more than twice as long with it
    running. Switching it back on is not enough for a large file: the collector's next pass
    would still scan every loaded object once, landing on whatever runs next (a tree walk
    took 2.3 s instead of 0.2 s). So `read_session` then moves what is alive out of its reach
    (`gc.freeze`; entries hold no cycles, and reference counting still frees them). It does
    so only from FREEZE_FROM entries on: a frozen object that later becomes part of a cycle
    is never collected, a fair price only where the pass would really hurt. The collector is
    switched back on (if it was on) however the load ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
