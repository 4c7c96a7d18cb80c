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
from pi.coding_agent.session.entries import CURRENT_VERSION, SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import iso_timestamp
from pi.coding_agent.session.tree import Node, SessionTree
from pi.coding_agent.session.writer import SessionWriter


def branched_path(tree: SessionTree, leaf_id: str) -> list[Node]:
    """The nodes root → `leaf_id` without label entries, each linked to the one before."""
    kept: list[Node] = []
    dropped: set[str] = set()
    for node in tree.node_path(leaf_id):
        if node.type == "label":
            dropped.add(node.id)
            continue
        if node.parent_id in dropped:
            node = relinked(node, kept[-1].id if kept else None)
        kept.append(node)
    return kept


def relinked(node: Node, parent_id: str | None) -> Node:
    """The same entry below another parent; its line changes in `parentId` and nowhere else."""
    entry = node.entry.model_copy(update={"parent_id": parent_id})
    line = None
    if node.line is not None:
        data = json.loads(node.line)
        data["parentId"] = parent_id
        line = (json_text(data) + "\n").encode()
    return Node.of(entry, line, node.file, node.number)


def labels_on(tree: SessionTree, nodes: list[Node]) -> list[tuple[str, str]]:
    """(target id, label) for every current label that names one of `nodes`."""
    ids = {node.id for node in nodes}
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
    nodes = branched_path(writer.tree, writer.require(leaf).id)
    header = SessionHeader(version=CURRENT_VERSION, id=session_id, cwd=writer.header.cwd,
                           timestamp=iso_timestamp(writer.clock()),
                           parent_session=str(writer.path))
    forked = SessionWriter.create(path, header, ids=writer.ids, clock=writer.clock,
                                  opener=writer.opener, sync=writer.sync)
    for node in nodes:
        forked.append_copy(node)
    for target, label in labels_on(writer.tree, nodes):
        forked.append_label(target, label)
    return forked
