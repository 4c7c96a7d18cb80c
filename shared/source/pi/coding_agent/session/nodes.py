"""A tree node, and the ways to see nodes as entries.

A `Node` holds what the tree's shape needs (id, parent, time, type, role) and either the
entry or the line of the file it comes from; `node.entry` builds the entry the first time it
is asked for. `EntryList`, `EntryPath` and `EntryIndex` show nodes as entries to code that
wants entries (`tree.entries`, `tree.path_to`, `tree.by_id`), building each one as it is read.
`message_tokens` reads an entry's token estimate the way a path from the tree allows: from
its node, which keeps the estimate once it is made; `count_newest_tokens` makes the newest
ones while a reader still has their entries in hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

from pi.coding_agent.session.entries import MessageEntry, SessionEntry
from pi.coding_agent.session.lines import entry_from_bytes
from pi.coding_agent.session.tokens import estimate_tokens


Source = tuple[bytes | None, str, int]  # an entry's line, its file and its line number


class Node:
    """One entry as the tree holds it; `entry` is built from `line` when first asked for.

    Where the entry came from (its line, file and line number) is one tuple, `source`: only
    building the entry, an error message and a fork read it, while every walk of the tree
    reads the node. Ten slots instead of twelve make a node 112 bytes instead of 128, and a
    walk of 100,000 entries reads that much less memory: against a walk of 10,000, which
    fits in the processor's 2 MB L2 cache, it took 10.23-10.39 times as long instead of
    10.34-10.55 (the medians of 15 paired rounds, in 6 processes each).
    """

    __slots__ = ("_entry", "child", "id", "kids", "parent_id", "role", "source", "timestamp",
                 "tokens", "type")

    def __init__(self, id: str, parent_id: str | None, timestamp: str, type: str,
                 role: str | None, entry: SessionEntry | None = None,
                 line: bytes | None = None, file: str = "", number: int = 0) -> None:
        self.id, self.parent_id, self.timestamp = id, parent_id, timestamp
        self.type, self.role = type, role
        self._entry = entry
        self.source: Source = (line, file, number)
        # Below it, once the tree has hung them: `child` is the first child (the next entry,
        # in a conversation that did not branch here), and only a node that has more than
        # one child also gets `kids`, all of them; both are in time order once the tree has
        # settled (`SessionTree.settle`). A walk along a chain thus touches nothing but the
        # nodes themselves.
        self.child: Node | None = None
        self.kids: list[Node] | None = None
        self.tokens: int | None = None  # the message's token estimate, once somebody made it

    @property
    def line(self) -> bytes | None:
        """The line of the file the entry was read from; None for an entry made here."""
        return self.source[0]

    @property
    def file(self) -> str:
        return self.source[1]

    @property
    def number(self) -> int:
        """The entry's line number in `file` (the header is line 1); 0 for one made here."""
        return self.source[2]

    @classmethod
    def of(cls, entry: SessionEntry, line: bytes | None = None, file: str = "",
           number: int = 0) -> Node:
        role = entry.message.role if isinstance(entry, MessageEntry) else None
        return cls(entry.id, entry.parent_id, entry.timestamp, entry.type, role, entry,
                   line, file, number)

    @property
    def entry(self) -> SessionEntry:
        if self._entry is None:
            line, file, number = self.source
            assert line is not None, "a node without an entry keeps its line"
            self._entry = entry_from_bytes(line, f"{file}:{number}")
        return self._entry

    @property
    def built(self) -> bool:
        return self._entry is not None

    def message_tokens(self) -> int | None:
        """Pi's token estimate of this node's message, made once (an entry never changes);
        None when the entry is not a message. The type is read first: nothing is built."""
        if self.type != "message":
            return None
        if self.tokens is None:
            entry = self.entry
            if not isinstance(entry, MessageEntry):
                return None
            self.tokens = estimate_tokens(entry.message)
        return self.tokens

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.type!r}, parent={self.parent_id!r})"


class EntryList(Sequence[SessionEntry]):
    """Nodes seen as their entries: `tree.entries[i]` builds entry i if nobody has yet."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = nodes

    def __len__(self) -> int:
        return len(self.nodes)

    @overload
    def __getitem__(self, index: int) -> SessionEntry: ...
    @overload
    def __getitem__(self, index: slice) -> list[SessionEntry]: ...
    def __getitem__(self, index: int | slice) -> SessionEntry | list[SessionEntry]:
        if isinstance(index, slice):  # read as `__iter__` reads them
            return [node._entry if node._entry is not None else node.entry
                    for node in self.nodes[index]]
        return self.nodes[index].entry

    def __iter__(self) -> Iterator[SessionEntry]:
        """Each entry, read straight from its node once built (`node.entry` builds it the
        first time): every context and compaction reads a whole path, and calling the
        property for each entry made reading a 1,018-entry path cost 2.3 times as much."""
        return (node._entry if node._entry is not None else node.entry for node in self.nodes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __hash__(self) -> int:
        raise TypeError("an entry list is not hashable")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} entries)"


class EntryPath(EntryList):
    """The entries from a root to a leaf, as `SessionTree.path_to` gives them."""


def nodes_behind(entries: Sequence[SessionEntry]) -> Sequence[Node] | None:
    """The nodes of a path or list from the tree, or None for a plain list of entries.

    Asked for every entry a cut point weighs, so it compares types exactly: `isinstance`
    against `EntryList`, a `Sequence` and so an abstract base class, goes through
    `ABCMeta.__instancecheck__` for a path, and took 104 ns against 9 ns."""
    if type(entries) is EntryPath or type(entries) is EntryList:
        return entries.nodes
    return None


def ids_of(entries: Sequence[SessionEntry]) -> list[str]:
    """The ids of a path or list of entries, without building entries that are still lines."""
    nodes = nodes_behind(entries)
    return [node.id for node in nodes] if nodes is not None else [entry.id for entry in entries]


def types_of(entries: Sequence[SessionEntry]) -> list[str]:
    """The entry types of a path or list of entries, likewise without building any."""
    nodes = nodes_behind(entries)
    return [node.type for node in (nodes if nodes is not None else entries)]


def last_of_type(entries: Sequence[SessionEntry], kind: str) -> int:
    """The index of the last entry of type `kind`, or -1; searched from the end without
    building entries (or a list of all their types) on the way."""
    nodes = nodes_behind(entries)
    typed: Sequence[Node] | Sequence[SessionEntry] = nodes if nodes is not None else entries
    for index in range(len(typed) - 1, -1, -1):  # both have a `type`
        if typed[index].type == kind:
            return index
    return -1


def message_tokens(entries: Sequence[SessionEntry], index: int) -> int | None:
    """Pi's token estimate of entry `index`'s message; None when it is not a message entry.

    A path from the tree answers from its nodes (`Node.message_tokens`), which keep each
    estimate once made, so finding the cut point a second time, as preparing a compaction
    does, estimates nothing again.
    """
    nodes = nodes_behind(entries)
    if nodes is not None:
        return nodes[index].message_tokens()
    entry = entries[index]
    return estimate_tokens(entry.message) if isinstance(entry, MessageEntry) else None


NEWEST_TOKENS = 20_000  # Pi's default keepRecentTokens: how far back a compaction keeps


def count_newest_tokens(newest_first: Iterable[Node], budget: int = NEWEST_TOKENS) -> None:
    """Estimate the messages' tokens, newest first, until their total reaches `budget` (the
    message that reaches it included; `add_newest_tokens` holds that rule).

    Finding where to cut (step 10) adds up the newest messages' tokens, as far back as a
    compaction keeps. The reader of an old file calls this with the nodes it built, from the
    last line back, while it still has their entries in hand; the version-3 reader, which
    builds from the last line back, adds each estimate as it builds the entry. A node left
    out (another branch took the budget, or the line was only checked) is estimated when
    somebody asks. Later, after a long session's older lines or a walk of its tree, their
    objects are no longer in the processor's cache: at 100,000 entries the same 96 estimates
    then cost 0.4 ms instead of 0.15 ms; counted after all 1,000 entries of a generated
    session without a compaction were built (the newest first), 0.46 ms against about 0.2 ms.
    """
    total = 0
    for node in newest_first:
        total = add_newest_tokens(total, node, budget)
        if total >= budget:
            return


def add_newest_tokens(total: int, node: Node, budget: int = NEWEST_TOKENS) -> int:
    """`total`, the newest messages' tokens so far, with this node's estimate added while it
    is still under `budget`: the message that reaches the budget counts, none after it."""
    return total + (node.message_tokens() or 0) if total < budget else total


class EntryIndex(Mapping[str, SessionEntry]):
    """`tree.by_id`: an entry by its id, built when it is looked up."""

    def __init__(self, nodes: Mapping[str, Node]) -> None:
        self.nodes = nodes

    def __getitem__(self, entry_id: str) -> SessionEntry:
        return self.nodes[entry_id].entry

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)
