"""The entries of a session as a tree that only grows: lookup by id, the path root → leaf,
the children of an entry; labels and the session name are global (the last setter wins)."""

from __future__ import annotations

from collections.abc import Iterable

from pi.coding_agent.session.entries import (LabelEntry, SessionEntry, SessionError,
                                             SessionInfoEntry, ms_from_iso)


class SessionTree:
    """Entries in file order, indexed by id; the leaf after loading is the last entry."""

    def __init__(self, entries: Iterable[SessionEntry] = ()) -> None:
        self.entries: list[SessionEntry] = []
        self.by_id: dict[str, SessionEntry] = {}
        self.children_in_file_order: dict[str, list[SessionEntry]] = {}  # by parent id
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        for entry in entries:
            self.add(entry)

    def add(self, entry: SessionEntry, where: str = "") -> None:
        """Record one more entry (its id must be new) and what it says about labels or name."""
        if entry.id in self.by_id:
            place = f"{where}: " if where else ""
            raise SessionError(f"{place}entry id {entry.id} is already used by an earlier entry")
        self.entries.append(entry)
        self.by_id[entry.id] = entry
        if entry.parent_id is not None:
            self.children_in_file_order.setdefault(entry.parent_id, []).append(entry)
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
        return self.entries[-1].id if self.entries else None

    def path_to(self, leaf_id: str) -> list[SessionEntry]:
        """The entries from the root down to `leaf_id`. An unknown id is
        SessionError("no entry with id <id>"); a chain of parents that loops (a path longer
        than the tree has entries) is SessionError("entry <id>: its chain of parents loops")."""
        entry = self.by_id.get(leaf_id)
        if entry is None:
            raise SessionError(f"no entry with id {leaf_id}")
        path = [entry]
        while (parent := self.parent_of(entry)) is not None:
            if len(path) > len(self.by_id):
                raise SessionError(f"entry {leaf_id}: its chain of parents loops")
            path.append(parent)
            entry = parent
        path.reverse()
        return path

    def parent_of(self, entry: SessionEntry) -> SessionEntry | None:
        """The parent entry; None for a root (no parent, itself, or an unknown id)."""
        if entry.parent_id is None or entry.parent_id == entry.id:
            return None
        return self.by_id.get(entry.parent_id)

    def children(self, entry_id: str | None) -> list[SessionEntry]:
        """An entry's children, oldest timestamp first (a tie keeps file order); `None`
        gives the roots, in file order."""
        if entry_id is None:
            return [entry for entry in self.entries if self.parent_of(entry) is None]
        kids = [kid for kid in self.children_in_file_order.get(entry_id, []) if kid.id != entry_id]
        return sorted(kids, key=timestamp_key)


def timestamp_key(entry: SessionEntry) -> tuple[int, int]:
    """Sort by time; an unreadable timestamp sorts after every readable one."""
    moment = ms_from_iso(entry.timestamp)
    return (1, 0) if moment is None else (0, moment)
