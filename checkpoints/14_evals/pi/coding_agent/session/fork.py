"""What a forked session file holds (Pi's createBranchedSession).

Forking copies one conversation out of a tree: the path from the root to a leaf, in a new
file whose header points back at the old one (`parentSession`). Label entries on the path
are left out and the labels that still name an entry of the path are written again at the
end, so the new file carries the labels without the detours. Pi leaves an entry that hung
below a dropped label pointing at an id the new file does not have (it becomes a second
root, cutting the conversation short); here it hangs below the entry before it instead.
"""

from __future__ import annotations

import json
from pathlib import Path

from pi.ai.messages import json_text
from pi.coding_agent.session.entries import CURRENT_VERSION, SessionEntry, SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import iso_timestamp
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.writer import SessionWriter


def branched_path(tree: SessionTree, leaf_id: str) -> list[tuple[SessionEntry, bytes | None]]:
    """(entry, its line) root → `leaf_id` without label entries, each linked to the one
    before it."""
    kept: list[tuple[SessionEntry, bytes | None]] = []
    dropped: set[str] = set()
    for entry in tree.path_to(leaf_id):
        line = tree.lines.get(entry.id)
        if entry.type == "label":
            dropped.add(entry.id)
            continue
        if entry.parent_id in dropped:
            entry, line = relinked(entry, line, kept[-1][0].id if kept else None)
        kept.append((entry, line))
    return kept


def relinked(entry: SessionEntry, line: bytes | None,
             parent_id: str | None) -> tuple[SessionEntry, bytes | None]:
    """The same entry below another parent; its line changes in `parentId` and nowhere else."""
    moved = entry.model_copy(update={"parent_id": parent_id})
    if line is None:
        return moved, None
    data = json.loads(line)
    data["parentId"] = parent_id
    return moved, (json_text(data) + "\n").encode()


def labels_on(tree: SessionTree, entries: list[SessionEntry]) -> list[tuple[str, str]]:
    """(target id, label) for every current label that names one of `entries`."""
    ids = {entry.id for entry in entries}
    return [(target, label) for target, label in tree.labels.items() if target in ids]


def fork_session(writer: SessionWriter, path: Path, session_id: str,
                 leaf_id: str | None = None) -> SessionWriter:
    """A new file with only the path to `leaf_id` (default: the writer's leaf).

    Its header names the old file as `parentSession`; entries keep their ids and times;
    the labels of path entries are appended at the end. Each entry read from a file is
    copied as the line it was, byte for byte. With the current leaf this is a clone of the
    conversation as it stands.
    """
    leaf = leaf_id or writer.leaf_id
    if leaf is None:
        raise SessionError(f"{writer.path}: nothing to fork, the leaf is before the first entry")
    copied = branched_path(writer.tree, writer.require(leaf).id)
    header = SessionHeader(version=CURRENT_VERSION, id=session_id, cwd=writer.header.cwd,
                           timestamp=iso_timestamp(writer.clock()),
                           parent_session=str(writer.path))
    forked = SessionWriter.create(path, header, ids=writer.ids, clock=writer.clock,
                                  opener=writer.opener, sync=writer.sync)
    for entry, line in copied:
        forked.append_copy(entry, line)
    for target, label in labels_on(writer.tree, [entry for entry, _ in copied]):
        forked.append_label(target, label)
    return forked
