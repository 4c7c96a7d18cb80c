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


def read_session(path: Path, ids: IdSource | None = None) -> LoadedSession:
    """Read and validate a whole session file; raise SessionError naming `file:line`.

    `ids` gives the ids a version-1 file's entries receive; by default they count up from
    00000001, so reading the same old file twice gives the same ids.
    """
    return read_lines(path, JsonLines(path), ids or sequential_ids())


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
