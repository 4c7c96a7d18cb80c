"""Old session files brought to version 3, the way Pi migrates them.

Version 1 files have no ids: each entry follows the one before it. Version 2 added ids and
`parentId`, which turned the list into a tree; version 3 renamed the `hookMessage` role to
`custom`. Pi migrates a file when it opens one and rewrites the file in place. Here the
migration only changes the data that was read: the file on disk stays exactly as it was,
and `migrate_file` writes a migrated copy to a new file when someone asks for one.

The ids a v1 file gets come from an injected source (Pi draws random ones), so migrating the
same file twice with the same source gives the same ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring as json_string  # as COMPACT_JSON writes a str
from pathlib import Path
from typing import Any, TypeGuard

from pi.ai.messages import json_text

from pi.coding_agent.session.entries import CURRENT_VERSION, SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import IdSource, fresh_id
from pi.coding_agent.session.lines import (
    JsonLines,
    decode,
    entry_at,
    header_at,
    no_header,
    parse_entry_line,
)
from pi.coding_agent.session.nodes import Node


def file_version(header: SessionHeader, where: str) -> int:
    """The header's version (none = 1); a newer version than we know is refused."""
    version = header.version or 1
    if version > CURRENT_VERSION:
        raise SessionError(f"{where}: session version {version} is newer than this reader "
                           f"(version {CURRENT_VERSION})")
    return version


class Migration:
    """Migrates the lines of one file in file order, header first."""

    def __init__(self, version: int, ids: IdSource) -> None:
        self.version = version
        self.ids = ids
        self.line_ids: list[str | None] = [None]  # by line index, the header is line 0
        self.line_of: dict[str, int] = {}  # each id drawn, and the index of its line

    @property
    def needed(self) -> bool:
        return self.version < CURRENT_VERSION

    def header(self, data: dict[str, Any]) -> dict[str, Any]:
        """A header gets `version: 3` (a new key goes last, as in Pi)."""
        return {**data, "version": CURRENT_VERSION} if self.needed else data

    def entry(self, data: Any, ids: Ids | None = None) -> Any:
        """One decoded entry line, migrated; a v1 object gets `ids` (or the next ones)."""
        if self.version < 2 and isinstance(data, dict):
            data = self.add_ids(data, ids or self.next_ids())
        if self.version < 3 and isinstance(data, dict):
            data = rename_hook_message(data)
        return data

    def nodes(self, lines: Sequence[tuple[int, bytes]], file: str) -> list[Node]:
        """A node for each entry line of one file (line number, bytes), in file order, its
        entry migrated to version 3; a bad line raises SessionError naming `file:line`.

        Most old lines need nothing (v2) or only their ids (v1). Those are validated straight
        from their bytes, as a v3 line is, with a v1 line's ids written into its bytes first.
        A line that needs more (a compaction, whose index becomes an id; a hookMessage,
        renamed), or that the one pass refuses, is decoded and migrated as data, which also
        says what is wrong with it.

        The work goes in passes over the whole file, each a loop of one kind: every id drawn
        and written into its line, then every line validated, then every node made, then the
        few lines that need more. Made in a loop of their own, the nodes lie side by side in
        memory (99.3% of them right after the one before, against 2.7%), where every later
        walk along the tree's path reads them; made between the validations, each went into
        whatever block the validation before it had freed. On Pi's large-session.jsonl,
        opening it and reading its context for the leaf, its cut point and a compaction went
        from 1.53 to 1.47 times a bare `json.loads` of its lines (the medians of 6 processes
        each, interleaved); the context alone, from 0.41 to 0.35 ms.
        """
        raws = [raw for _, raw in lines]
        new_ids: list[str] = []
        parents: list[str | None] = []
        if self.version < 2:
            previous = self.line_ids[-1]  # None at the header: the first entry is a root
            new_ids = self.draw_ids(len(lines))
            parents = [previous, *new_ids]  # each entry's parent is the one before it
            raws = [with_ending(raw, ending)
                    for raw, ending in zip(raws, id_endings(new_ids, previous), strict=True)]
        entries = [parse_entry_line(raw) for raw in raws]
        built = [Node.of(entry, file=file, number=number) if entry is not None else None
                 for (number, _), entry in zip(lines, entries, strict=True)]
        return [node if node is not None and not self.unfinished(node)
                else self.migrated_node(file, *lines[index],
                                        (new_ids[index], parents[index]) if new_ids else None)
                for index, node in enumerate(built)]

    def migrated_node(self, file: str, number: int, raw: bytes, ids: Ids | None) -> Node:
        """A line the one pass is not enough for, decoded and migrated as data; an error
        names the line and what is wrong with it."""
        where = f"{file}:{number}"
        return Node.of(entry_at(self.entry(decode(raw, where), ids), where),
                       file=file, number=number)

    def unfinished(self, node: Node) -> bool:
        """Whether the one pass is not enough for this entry: a hookMessage (renamed), and
        in a v1 file a compaction (its index becomes an id)."""
        return node.role == "hookMessage" or (self.version < 2 and node.type == "compaction")

    def draw_ids(self, count: int) -> list[str]:
        """`count` fresh ids for the next v1 entries, in file order."""
        drawn: list[str] = []
        source, taken = self.ids, self.line_of  # every id drawn is checked against `taken`
        first = len(self.line_ids)
        for index in range(first, first + count):
            new_id = fresh_id(source, taken)
            taken[new_id] = index
            drawn.append(new_id)
        self.line_ids += drawn
        return drawn

    def next_ids(self) -> Ids:
        """The next v1 entry's id (fresh) and parent (the entry before it)."""
        previous = self.line_ids[-1]
        return self.draw_ids(1)[0], previous

    def add_ids(self, data: dict[str, Any], ids: Ids) -> dict[str, Any]:
        """v1 → v2: its id, the previous entry as parent, firstKeptEntryIndex → id."""
        out = {**data, "id": ids[0], "parentId": ids[1]}
        index = out.get("firstKeptEntryIndex")
        if out.get("type") == "compaction" and is_number(index):
            del out["firstKeptEntryIndex"]
            if is_line_index(index, self.line_of[ids[0]] + 1):  # lines up to its own
                out["firstKeptEntryId"] = self.line_ids[int(index)]
        return out


Ids = tuple[str, str | None]  # a v1 entry's new id and parent id


def id_endings(new_ids: Sequence[str], previous: str | None) -> list[bytes]:
    """What ends each new entry's JSON object instead of its `}`: `,"id":…,"parentId":…}`,
    the parent being the entry before it (`previous` for the first). Each id is written as
    JSON once and serves as the next entry's parent too."""
    texts = [json_string(new_id) for new_id in new_ids]
    parents = [json_string(previous) if previous is not None else "null", *texts][:-1]
    return [f',"id":{text},"parentId":{parent}}}'.encode()
            for text, parent in zip(texts, parents, strict=True)]


def with_ending(raw: bytes, ending: bytes) -> bytes:
    """A line that holds a JSON object, `{…}`, with its `}` replaced by `ending`: `id` and
    `parentId` added as its last keys (one already there is overridden, as in the decoded
    object: the last key counts). Only a valid object comes out valid: `{}` or `{"a":1,}`
    would give `{,"id":…}` or `{"a":1,,"id":…}`, which the one pass refuses, so such a line
    goes the slow way; so does a line that is not `{…}`, which is left as it is."""
    if raw.startswith(b"{") and raw.endswith(b"}\n"):  # as a writer ends every line
        return raw[:-2] + ending  # one copy of the line, not three
    line = raw.rstrip()
    return line[:-1] + ending if line.startswith(b"{") and line.endswith(b"}") else raw


def is_number(value: object) -> TypeGuard[float]:
    """JavaScript's `typeof value === "number"` for decoded JSON (true/false are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_line_index(index: float, lines: int) -> bool:
    """Whether Pi's `entries[index]` names an entry line (not the header) read so far."""
    return float(index).is_integer() and 0 < index < lines


def rename_hook_message(data: dict[str, Any]) -> dict[str, Any]:
    """v2 → v3: a message with role `hookMessage` becomes role `custom`; ids stay."""
    message = data.get("message")
    if data.get("type") == "message" and isinstance(message, dict) and (
        message.get("role") == "hookMessage"
    ):
        return {**data, "message": {**message, "role": "custom"}}
    return data


def migrate_file(source: Path, target: Path, ids: IdSource) -> int:
    """Write a version-3 copy of `source` to `target`, a file that must not exist yet.

    Every line is checked before anything is written, so a broken source leaves no half
    copy behind; `source` itself is never changed. Returns the version `source` had.
    """
    lines = JsonLines(source)
    out: list[str] = []
    migration: Migration | None = None
    for number, data in lines:
        where = f"{source}:{number}"
        if migration is None:
            migration = Migration(file_version(header_at(data, where), where), ids)
            out.append(json_text(migration.header(data)))
        else:
            migrated = migration.entry(data)
            entry_at(migrated, where)
            out.append(json_text(migrated))
    if migration is None:
        raise no_header(source, lines.warnings)
    try:
        with target.open("x", encoding="utf-8") as file:
            file.write("".join(line + "\n" for line in out))
    except OSError as error:
        raise SessionError(f"{target}: {error.strerror or error}") from None
    return migration.version
