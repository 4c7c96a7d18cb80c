"""Old session files brought to version 3, the way Pi migrates them.

Version 1 files have no ids: each entry follows the one before it. Version 2 added ids and
`parentId`, which turned the list into a tree; version 3 renamed the `hookMessage` role to
`custom`. As in Pi, migrating is two plain functions over the decoded lines (header first),
v1 → v2 and v2 → v3, run one after the other. Pi then rewrites the file in place; here only
the data that was read changes: the file on disk stays exactly as it was, and `migrate_file`
writes a migrated copy to a new file when someone asks for one.

The ids a v1 file gets come from an injected source (Pi draws random ones), so migrating the
same file twice with the same source gives the same ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeGuard

from pi.ai.messages import json_text

from pi.coding_agent.session.entries import CURRENT_VERSION, SessionHeader
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.ids import IdSource, fresh_id
from pi.coding_agent.session.lines import (
    committed_lines,
    decode,
    entry_at,
    header_at,
    no_header,
)


def file_version(header: SessionHeader, where: str) -> int:
    """The header's version (none = 1); a newer version than we know is refused."""
    version = header.version or 1
    if version > CURRENT_VERSION:
        raise SessionError(f"{where}: session version {version} is newer than this reader "
                           f"(version {CURRENT_VERSION})")
    return version


def migrate(items: list[Any], version: int, ids: IdSource) -> None:
    """Bring decoded lines (the header first) from `version` to version 3, in place."""
    if version < 2:
        migrate_v1_to_v2(items, ids)
    if version < 3:
        migrate_v2_to_v3(items)


def migrate_v1_to_v2(items: list[Any], ids: IdSource) -> None:
    """Pi's migrateV1ToV2: each entry gets a fresh id and the entry before it as parent,
    and a compaction's `firstKeptEntryIndex` (an index into these lines, the header being 0)
    becomes `firstKeptEntryId`, when it names an entry that already has its id."""
    items[0]["version"] = 2
    taken: set[str] = set()
    previous: str | None = None
    for position, item in enumerate(items[1:], start=1):
        if not isinstance(item, dict):
            continue  # not an entry at all: validating it will say so
        item["id"] = previous_id = fresh_id(ids, taken)
        item["parentId"] = previous
        taken.add(previous_id)
        previous = previous_id
        index = item.get("firstKeptEntryIndex")
        if item.get("type") == "compaction" and is_number(index):
            del item["firstKeptEntryIndex"]
            if is_line_index(index, position + 1) and isinstance(items[int(index)], dict):
                item["firstKeptEntryId"] = items[int(index)]["id"]


def migrate_v2_to_v3(items: list[Any]) -> None:
    """Pi's migrateV2ToV3: a message with role `hookMessage` becomes role `custom`."""
    items[0]["version"] = 3
    for item in items[1:]:
        message = item.get("message") if isinstance(item, dict) else None
        if isinstance(message, dict) and item.get("type") == "message" and (
            message.get("role") == "hookMessage"
        ):
            message["role"] = "custom"


def is_number(value: object) -> TypeGuard[float]:
    """JavaScript's `typeof value === "number"` for decoded JSON (true/false are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_line_index(index: float, lines: int) -> bool:
    """Whether Pi's `entries[index]` names an entry line (not the header) read so far."""
    return float(index).is_integer() and 0 < index < lines


def migrate_file(source: Path, target: Path, ids: IdSource) -> int:
    """Write a version-3 copy of `source` to `target`, a file that must not exist yet.

    Every line is checked before anything is written, so a broken source leaves no half
    copy behind; `source` itself is never changed. Returns the version `source` had.
    """
    warnings: list[str] = []
    lines = committed_lines(source, warnings)
    if not lines:
        raise no_header(source, warnings)
    wheres = [f"{source}:{number}" for number, _ in lines]
    items = [decode(raw, where) for (_, raw), where in zip(lines, wheres, strict=True)]
    version = file_version(header_at(items[0], wheres[0]), wheres[0])
    migrate(items, version, ids)
    for item, where in zip(items[1:], wheres[1:], strict=True):
        entry_at(item, where)
    try:
        with target.open("x", encoding="utf-8") as file:
            file.write("".join(json_text(item) + "\n" for item in items))
    except OSError as error:
        raise SessionError(f"{target}: {error.strerror or error}") from None
    return version
