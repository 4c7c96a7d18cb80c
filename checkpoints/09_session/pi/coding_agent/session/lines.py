"""The committed lines of a session file, each decoded once.

A session file only grows: every entry is one line ending in a newline. A last line without
its newline is a write that did not finish (the program stopped half-way); it is not part of
the history yet, so it is set aside with a warning instead of being parsed. Any other line
that is not valid JSON, or not a valid entry, stops the reading with one line saying where:
`FILE:LINE: what is wrong`, LINE counted from 1 with the header as line 1.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pi.ai import ProtocolError
from pydantic import ValidationError

from pi.coding_agent.session.entries import (
    ENTRY,
    KNOWN_ENTRY,
    SessionEntry,
    SessionHeader,
    parse_entry,
    parse_header,
)
from pi.coding_agent.session.errors import SessionError

REFUSE_TO_OVERWRITE = "Pi would start a new session in this file; it is left as it is"


@dataclass
class JsonLines:
    """Iterate as (line number, decoded JSON); `warnings` says what was set aside."""

    path: Path
    warnings: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for number, raw in self.raw():
            yield number, decode(raw, f"{self.path}:{number}")

    def raw(self) -> list[tuple[int, bytes]]:
        """(line number, the line's bytes) for every committed, non-blank line.

        The lines are read all at once and then sorted out in one comprehension: yielded one
        by one, with the checks in between, reading large-session.jsonl took 23% longer."""
        try:
            if not stat.S_ISREG(self.path.stat().st_mode):  # a FIFO never ends, nor /dev/zero
                raise SessionError(f"{self.path}: not a regular file (a folder, FIFO or "
                                   "device); not read")
            with self.path.open("rb") as file:
                lines = file.readlines()
        except OSError as error:
            raise SessionError(f"{self.path}: {error.strerror or error}") from None
        if lines and not lines[-1].endswith(b"\n"):
            self.warnings.append(f"{self.path}:{len(lines)}: the last line has no newline "
                                 "(a write that did not finish); ignored")
            lines.pop()
        return [(number, raw) for number, raw in enumerate(lines, start=1)
                if not raw.isspace()]  # Pi skips blank lines too


def decode(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise SessionError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
    except UnicodeDecodeError:
        raise SessionError(f"{where}: not valid UTF-8") from None
    except RecursionError:
        raise SessionError(f"{where}: nested too deeply to read") from None


def header_at(data: Any, where: str) -> SessionHeader:
    """The header line, or one error that also says the file will not be overwritten."""
    try:
        return parse_header(data, where)
    except ProtocolError as error:
        raise SessionError(f"{error} (not a session header; {REFUSE_TO_OVERWRITE})") from None


def entry_at(data: Any, where: str) -> SessionEntry:
    try:
        return parse_entry(data, where)
    except ProtocolError as error:
        raise SessionError(str(error)) from None


# Typed once here, so a line read costs no `cast` call of its own.
BUILD_KNOWN = cast(Callable[[bytes], SessionEntry], KNOWN_ENTRY.validator.validate_json)
BUILD_ANY = cast(Callable[[bytes], SessionEntry], ENTRY.validator.validate_json)


def parse_entry_line(raw: bytes) -> SessionEntry | None:
    """One line's bytes decoded and validated in one pass; None if anything is wrong with it.

    This is the fast path: pydantic reads the JSON itself, so no dict is built only to be
    thrown away. A line it refuses (or one that JSON allows but pydantic does not, such as
    `NaN`) goes the slow way, `decode` then `parse_entry`, which also says what is wrong.
    """
    try:
        return BUILD_KNOWN(raw)
    except ValidationError:
        pass
    try:
        return BUILD_ANY(raw)  # a type we do not know, or a bad line
    except ValidationError:
        return None


def entry_from_bytes(raw: bytes, where: str) -> SessionEntry:
    """One entry line: the one-pass check first; a line it refuses is decoded and checked
    again the slow way, which either names the problem or (for JSON that only Python's
    decoder accepts, such as `NaN`) reads it after all."""
    entry = parse_entry_line(raw)
    return entry if entry is not None else entry_at(decode(raw, where), where)


def no_header(path: Path, warnings: list[str]) -> SessionError:
    """The error for a file without one complete line."""
    why = "its only line is unfinished" if warnings else "the file is empty"
    return SessionError(f"{path}: no session header ({why}); {REFUSE_TO_OVERWRITE}")
