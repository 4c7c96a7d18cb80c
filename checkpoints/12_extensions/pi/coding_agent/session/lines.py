"""The committed lines of a session file, each decoded once.

A session file only grows: every entry is one line ending in a newline. A last line without
its newline is a write that did not finish (the program stopped half-way); it is not part of
the history yet, so it is set aside with a warning instead of being parsed. Any other line
that is not valid JSON, or not a valid entry, stops the reading with one line saying where:
`FILE:LINE: what is wrong`, LINE counted from 1 with the header as line 1. A line is data
somebody else wrote, so it is decoded by the bounded reader (`pi.ai.bounded.read_json`):
JSON nested thousands deep is an error naming the line, never a crash.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from pi.ai import ProtocolError
from pi.ai.bounded import TooLarge, read_bytes, read_json

from pi.coding_agent.session.entries import (
    SessionEntry,
    SessionHeader,
    parse_entry,
    parse_header,
)
from pi.coding_agent.session.errors import SessionError

REFUSE_TO_OVERWRITE = "Pi would start a new session in this file; it is left as it is"

Line = tuple[int, bytes]  # a line's number in the file (the header is 1) and its bytes


def committed_lines(path: Path, warnings: list[str]) -> list[Line]:
    """Every finished, non-blank line of the file, numbered; an unfinished last line is
    left out and a warning saying so is added to `warnings`."""
    try:
        lines = io.BytesIO(read_bytes(path)).readlines()  # a FIFO or /dev/zero is not read
    except OSError as error:  # NotAFile says what is there: "is a FIFO, not a file"
        raise SessionError(f"{path}: {error.strerror or error}") from None
    if lines and not lines[-1].endswith(b"\n"):
        warnings.append(f"{path}:{len(lines)}: the last line has no newline (a write that "
                        "did not finish); ignored")
        lines.pop()
    return [(number, raw) for number, raw in enumerate(lines, start=1)
            if not raw.isspace()]  # Pi skips blank lines too


def decode(raw: bytes, where: str) -> Any:
    """One line's JSON, within the course's bounds; a SessionError says what is wrong."""
    try:
        return read_json(raw)
    except json.JSONDecodeError as error:
        raise SessionError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
    except UnicodeDecodeError:
        raise SessionError(f"{where}: not valid UTF-8") from None
    except TooLarge as error:
        raise SessionError(f"{where}: too large to read ({error})") from None


def header_at(data: Any, where: str) -> SessionHeader:
    """The header line, or one error that also says the file will not be overwritten."""
    try:
        return parse_header(data, where)
    except ProtocolError as error:
        raise SessionError(f"{error} (not a session header; {REFUSE_TO_OVERWRITE})") from None


def entry_at(data: Any, where: str) -> SessionEntry:
    """One decoded entry line as its model; a SessionError names the line and the field."""
    try:
        return parse_entry(data, where)
    except ProtocolError as error:
        raise SessionError(str(error)) from None


def no_header(path: Path, warnings: list[str]) -> SessionError:
    """The error for a file without one complete line."""
    why = "its only line is unfinished" if warnings else "the file is empty"
    return SessionError(f"{path}: no session header ({why}); {REFUSE_TO_OVERWRITE}")
