"""Opening a session file: every line parsed and validated once, errors naming `FILE:LINE`;
an old version is migrated in memory as Pi migrates it, and the file is never rewritten."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json

from pi.ai.bounded import TooLarge, open_regular, read_json
from pi.ai.messages import describe_error
from pi.coding_agent.session.entries import (CURRENT_VERSION, ENTRY, IdSource, SessionEntry,
                                             SessionError, SessionHeader, entry_problem, fresh_id,
                                             parse_entry, sequential_ids)
from pi.coding_agent.session.tree import SessionTree

REFUSE_TO_OVERWRITE = "Pi would start a new session in this file; it is left as it is"


@dataclass(frozen=True)
class LoadedSession:
    """A session file as read: its header (as version 3), the tree, and what was noticed."""

    path: Path
    header: SessionHeader
    tree: SessionTree
    file_version: int
    warnings: tuple[str, ...] = ()

    @property
    def entries(self) -> list[SessionEntry]:
        return self.tree.entries

    @property
    def migrated(self) -> bool:
        """True when the file is older than version 3 and was migrated while reading."""
        return self.file_version != self.header.version


def committed_lines(path: Path, warnings: list[str]) -> Iterator[tuple[int, bytes]]:
    """(number, bytes) of every finished, non-blank line, read one at a time; an unfinished
    last line (a write cut short) is left out with a warning."""
    try:
        with open_regular(path) as file:  # a FIFO or /dev/zero is never read
            for number, raw in enumerate(file, start=1):
                if not raw.endswith(b"\n"):  # only the last line can lack its newline
                    warnings.append(f"{path}:{number}: the last line has no newline (a write "
                                    "that did not finish); ignored")
                elif not raw.isspace():  # Pi skips blank lines too
                    yield number, raw
    except OSError as error:  # NotAFile says what is there: "is a FIFO, not a file"
        raise SessionError(f"{path}: {error.strerror or error}") from None


def decode(raw: bytes, where: str) -> Any:
    """One line's JSON, nested at most 200 deep: pydantic's parser, and for a line it refuses
    (bad JSON, too deep, a lone surrogate) the bounded `json` reader, which reads it or names
    what is wrong."""
    with contextlib.suppress(ValueError):
        return from_json(raw)
    try:
        return read_json(raw)
    except json.JSONDecodeError as error:
        raise SessionError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
    except UnicodeDecodeError:
        raise SessionError(f"{where}: not valid UTF-8") from None
    except TooLarge as error:
        raise SessionError(f"{where}: too large to read ({error})") from None


def header_version(data: Any, where: str) -> tuple[SessionHeader, int]:
    """The header and its version (none = 1); a newer version than we know is refused."""
    try:
        header = SessionHeader.model_validate(data)
    except ValidationError as error:
        raise SessionError(f"{describe_error(error, where)} (not a session header; "
                           f"{REFUSE_TO_OVERWRITE})") from None
    version = header.version or 1
    if version > CURRENT_VERSION:
        raise SessionError(f"{where}: session version {version} is newer than this reader "
                           f"(version {CURRENT_VERSION})")
    return header, version


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
        item["id"] = fresh_id(ids, taken)
        item["parentId"] = previous
        taken.add(item["id"])
        previous = item["id"]
        index = item.get("firstKeptEntryIndex")
        # JavaScript's `typeof index === "number"`: true/false are not numbers
        if item.get("type") == "compaction" and isinstance(index, int | float) and (
                not isinstance(index, bool)):
            del item["firstKeptEntryIndex"]
            if float(index).is_integer() and 0 < index <= position and isinstance(
                    items[int(index)], dict):
                item["firstKeptEntryId"] = items[int(index)]["id"]


def migrate_v2_to_v3(items: list[Any]) -> None:
    """Pi's migrateV2ToV3: a message with role `hookMessage` becomes role `custom`."""
    items[0]["version"] = 3
    for item in items[1:]:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        message = item.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"


def migrate(items: list[Any], version: int, ids: IdSource) -> None:
    """Bring decoded lines (the header first) from `version` to version 3, in place."""
    if version < 2:
        migrate_v1_to_v2(items, ids)
    if version < 3:
        migrate_v2_to_v3(items)


def read_entry(raw: bytes, where: str) -> SessionEntry:
    """One v3 entry line, parsed and validated in one pass; a line pydantic's JSON parser
    refuses is decoded and validated apart, for the same result or a clear error."""
    try:
        return ENTRY.validate_json(raw)
    except ValidationError as error:
        if error.errors()[0]["type"] != "json_invalid":
            raise SessionError(entry_problem(error, where)) from None
    return parse_entry(decode(raw, where), where)


def read_session(path: Path, ids: IdSource | None = None) -> LoadedSession:
    """Read and validate a whole session file; raise SessionError naming `file:line`. `ids`
    gives a version-1 file's entries their ids (by default 00000001 up, so reading the same
    old file twice gives the same ids)."""
    warnings: list[str] = []
    lines = committed_lines(path, warnings)
    number, raw = next(lines, (0, b""))
    if not number:
        why = "its only line is unfinished" if warnings else "the file is empty"
        raise SessionError(f"{path}: no session header ({why}); {REFUSE_TO_OVERWRITE}")
    where = f"{path}:{number}"
    first = decode(raw, where)
    header, version = header_version(first, where)
    tree = SessionTree()
    if version == CURRENT_VERSION:
        for number, raw in lines:
            tree.add(read_entry(raw, f"{path}:{number}"), f"{path}:{number}")
        return LoadedSession(path, header, tree, version, tuple(warnings))
    # Pi migrates the whole list at once (a v1 compaction names positions)
    rest = [(f"{path}:{number}", raw) for number, raw in lines]
    items = [first, *(decode(raw, place) for place, raw in rest)]
    migrate(items, version, ids or sequential_ids())
    header = header_version(items[0], where)[0]
    for (place, _), item in zip(rest, items[1:], strict=True):
        tree.add(parse_entry(item, place), place)
    return LoadedSession(path, header, tree, version, tuple(warnings))
