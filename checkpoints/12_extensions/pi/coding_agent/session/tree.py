"""The entries of a session as a tree.

Every entry names its parent, so the file is a tree that only grows: a branch is just a
second child of some earlier entry, and nothing is ever moved or deleted. Three questions are
asked of it all the time: which entry has this id, what is the path from the root to this
leaf (that path is the conversation a model sees), and what hangs below an entry (for a
screen that draws the tree). Labels and the session name are stored as entries too, but their
effect is global: the last label entry for a target wins, wherever it sits in the tree.

The tree is made of `Node`s: the few fields its shape needs (id, parent, time, type, role)
and either the entry itself or the line of the file it comes from. A long session's old
entries are never shown to a model, so the reader leaves them as lines (checked, not built);
`node.entry` builds one the first time it is asked for. `entries`, `by_id` and `path_to`
give entries and build them as they are read; `children`, `walk` and `node_path` give nodes
and build nothing, so walking a tree of 100,000 entries costs little more than counting them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pi.coding_agent.session.entries import LabelEntry, SessionEntry, SessionInfoEntry
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import ms_from_iso
from pi.coding_agent.session.nodes import EntryIndex, EntryList, EntryPath, Node, ids_of

__all__ = ["EntryIndex", "EntryList", "EntryPath", "Node", "SessionTree", "ids_of"]


class SessionTree:
    """Entries in file order, indexed by id; the leaf after loading is the last entry."""

    def __init__(self, entries: Iterable[SessionEntry] = ()) -> None:
        self.nodes: list[Node] = []
        self.node_of: dict[str, Node] = {}
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self.roots: list[Node] = []  # in file order; every other node hangs below its parent
        self._unsorted: set[Node] = set()  # parents whose kids still need sorting by time
        self._early: list[Node] = []  # roots whose parent id may yet turn up later in the file
        for entry in entries:
            self.add(entry)

    @property
    def entries(self) -> EntryList:
        """Every entry in file order (a view: each is built when it is read)."""
        return EntryList(self.nodes)

    @property
    def by_id(self) -> EntryIndex:
        return EntryIndex(self.node_of)

    def add(self, entry: SessionEntry) -> None:
        """Record one more entry (its id must be new) and what it says about labels or name."""
        self.add_node(Node.of(entry))

    def add_node(self, node: Node) -> None:
        if node.id in self.node_of:
            where = f"{node.file}:{node.number}: " if node.file else ""
            raise SessionError(f"{where}entry id {node.id} is already used by an earlier entry")
        self.nodes.append(node)
        self.node_of[node.id] = node
        self.hang(node)
        if node.type == "label" or node.type == "session_info":
            self.note(node.entry)

    def note(self, entry: SessionEntry) -> None:
        """What a label or session-info entry says for the whole tree."""
        if isinstance(entry, LabelEntry):
            if entry.label:
                self.labels[entry.target_id] = entry.label
            else:
                self.labels.pop(entry.target_id, None)
        elif isinstance(entry, SessionInfoEntry):
            self.name = (entry.name or "").strip() or None  # Pi 0.73: an empty name clears it

    @property
    def leaf_on_load(self) -> str | None:
        """Pi's leaf after opening a file: the last entry written, not the deepest one."""
        return self.nodes[-1].id if self.nodes else None

    def node_path(self, leaf_id: str) -> list[Node]:
        """The nodes from the root down to `leaf_id`, walking the parent links once.

        An unknown `leaf_id` is a SessionError (`no entry with id …`). A broken file can hold
        a chain of parents that never reaches a root; a path longer than the tree has nodes
        is a SessionError too, `entry {leaf_id}: its chain of parents loops`, never a hang.
        """
        node = self.node_of.get(leaf_id)
        if node is None:
            raise SessionError(f"no entry with id {leaf_id}")
        path = [node]
        while (parent := self.parent_of(node)) is not None:
            if len(path) > len(self.node_of):
                raise SessionError(f"entry {leaf_id}: its chain of parents loops")
            path.append(parent)
            node = parent
        path.reverse()
        return path

    def path_to(self, leaf_id: str) -> EntryPath:
        """The entries from the root down to `leaf_id` (each built when it is read)."""
        return EntryPath(self.node_path(leaf_id))

    def parent_of(self, node: Node) -> Node | None:
        """The parent node; None for a root (no parent, itself, or an unknown id)."""
        if node.parent_id is None or node.parent_id == node.id:
            return None
        return self.node_of.get(node.parent_id)

    def hang(self, node: Node) -> None:
        """Put a new node below its parent, or among the roots.

        The first child to arrive becomes the parent's `child`; a second one makes the parent
        a branch point, whose `kids` then hold all of them (the first one too). `settle`
        sorts them by time later, when somebody asks for children.
        """
        parent = node.parent_id
        above = self.node_of.get(parent) if parent is not None else None
        if above is None or above is node:
            if parent is not None and above is None:
                self._early.append(node)  # its parent may come later in the file
            self.roots.append(node)  # no parent, itself, or an unknown id: a root, as in Pi
            return
        node.parent_id = above.id  # one string for both ids
        if above.child is None:
            above.child = node
            return
        if above.kids is None:
            above.kids = [above.child]  # the conversation branches here
        above.kids.append(node)
        self._unsorted.add(above)

    def children(self, entry_id: str | None) -> list[Node]:
        """An entry's children, oldest timestamp first; `None` gives the roots, in file order."""
        self.settle()
        if entry_id is None:
            return self.roots
        node = self.node_of.get(entry_id)
        if node is None or node.child is None:
            return []
        return node.kids if node.kids is not None else [node.child]

    def settle(self) -> None:
        """Bring the children up to date: a root whose parent turned up later in the file
        moves below it, and children that arrived out of time order are sorted."""
        if self._early:
            moved = [node for node in self._early if node.parent_id in self.node_of]
            if moved:
                gone = {id(node) for node in moved}
                self._early = [node for node in self._early if id(node) not in gone]
                self.roots = [node for node in self.roots if id(node) not in gone]
                for node in moved:
                    self.hang(node)
        for parent in self._unsorted:
            assert parent.kids is not None
            parent.kids.sort(key=timestamp_key)  # stable: equal times keep file order
            parent.child = parent.kids[0]
        self._unsorted.clear()

    def walk(self) -> Iterator[tuple[int, Node]]:
        """(depth, node) depth-first, in Pi's `getTree` order; no recursion, any depth.

        A chain (one child after another, most of any session) is followed in a loop from
        node to `child`; only the later children of a branch point wait on the stack. They
        are pushed as a list: pushed from a generator, they left small freed blocks behind
        in the C allocator at every branch point, and the next large allocation, wherever it
        came, first had to sweep them all up (0.1 ms per walk of a 100,000-entry tree).
        """
        self.settle()
        stack = [(0, root) for root in reversed(self.roots)]
        while stack:
            depth, node = stack.pop()
            while True:
                yield depth, node
                depth += 1
                if node.kids is not None:
                    stack += [(depth, kid) for kid in reversed(node.kids[1:])]  # a list: see above
                if node.child is None:
                    break
                node = node.child


def timestamp_key(node: Node) -> tuple[int, int]:
    """Sort by time; an unreadable timestamp sorts after every readable one."""
    try:
        return (0, ms_from_iso(node.timestamp))
    except ValueError:
        return (1, 0)
