"""Opening a session file: every line checked once, old versions migrated in memory.

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
from pi.coding_agent.session.ids import IdSource, sequential_ids
from pi.coding_agent.session.lines import JsonLines, decode, header_at, no_header
from pi.coding_agent.session.migrate import Migration, file_version
from pi.coding_agent.session.nodes import EntryList, count_newest_tokens
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


FREEZE_FROM = 10_000  # entries; below this, a full pass over what a load made costs little


def read_session(path: Path, ids: IdSource | None = None) -> LoadedSession:
    """Read and validate a whole session file; raise SessionError naming `file:line`.

    `ids` gives the ids a version-1 file's entries receive; by default they count up from
    00000001, so reading the same old file twice gives the same ids.
    """
    with collector_paused() as was_enabled:
        session = read_lines(path, JsonLines(path), ids or sequential_ids())
        if was_enabled:  # before the collector is back on: its first pass would come at once
            out_of_the_young_generations(len(session.tree.nodes))
    return session


def read_lines(path: Path, lines: JsonLines, ids: IdSource) -> LoadedSession:
    """Header first (migrated if old), then each entry: migrated, validated, added."""
    numbered = lines.raw()
    if not numbered:
        raise no_header(path, lines.warnings)
    number, raw = numbered[0]
    data = decode(raw, f"{path}:{number}")
    header = header_at(data, f"{path}:{number}")
    migration = Migration(file_version(header, f"{path}:{number}"), ids)
    tree = SessionTree()
    if migration.needed:
        header = header_at(migration.header(data), f"{path}:{number}")
        for node in migration.nodes(numbered[1:], str(path)):
            tree.add_node(node)
        count_newest_tokens(reversed(tree.nodes))  # built last: still at hand
    else:
        for node in read_nodes(str(path), numbered[1:]):
            tree.add_node(node)  # a node from a file: an error names its line
    return LoadedSession(path, header, tree, migration.version, tuple(lines.warnings))


@contextmanager
def collector_paused() -> Iterator[bool]:
    """Pause Python's cycle collector while a file loads.

    Every object a load creates stays alive, yet the collector would scan them again and
    again as they pile up: reading 100,000 entries took more than twice as long with it
    running. The collector is switched back on (if it was on) however the load ends; the
    block is told whether it was.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield was_enabled
    finally:
        if was_enabled:
            gc.enable()


def out_of_the_young_generations(nodes: int) -> None:
    """Keep the collector's next pass off the objects a load just made.

    Switching the collector back on is not enough: its next pass would scan every loaded
    object once, landing on whatever runs next (2-4 ms after 1,000 entries, a third of the
    load; a tree walk after 100,000 entries took 2.3 s instead of 0.2 s). `gc.freeze()` moves
    everything alive into a generation no pass scans, at no cost per object.

    From FREEZE_FROM entries on they stay there: entries hold no cycles, and reference
    counting still frees them, but a frozen object that later becomes part of a cycle is never
    collected, a fair price only where a full pass would really hurt. Below that,
    `gc.unfreeze()` moves them on at once to the oldest generation, which only the rare full
    passes scan, as if they had lived there for a while. (If anything was frozen before, an
    unfreeze would release it too, so then this load stays frozen as well.)
    """
    already_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    if nodes < FREEZE_FROM and not already_frozen:
        gc.unfreeze()
