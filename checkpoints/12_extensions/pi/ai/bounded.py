"""Bounds on what is read from outside: how deep data nests, how much there is, what a path is.

Deep `[[[[…` exhausts Python's stack and a YAML alias bomb expands to billions of values, so
everything read goes through `within_bounds`; a file a user names is opened only if regular."""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

MAX_DEPTH = 200  # levels of nesting; the course's own data needs about ten
MAX_VALUES = 1_000_000  # values, counting each use of a shared (aliased) value again
KINDS = {stat.S_IFREG: "a file", stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO",
         stat.S_IFSOCK: "a socket"}  # what a path holds, as a message names it


class TooLarge(ValueError):
    """Data that crosses a bound; its text says which, in words a user can act on."""


def within_bounds(value: Any) -> Any:
    """`value` itself if no deeper than MAX_DEPTH and holding at most MAX_VALUES values;
    otherwise TooLarge. The walk stops as soon as a bound is crossed."""
    waiting, seen = [(value, 1)], 0
    while waiting:
        item, depth = waiting.pop()
        seen += 1
        if depth > MAX_DEPTH:
            raise TooLarge(f"nested deeper than {MAX_DEPTH} levels")
        if seen > MAX_VALUES:
            raise TooLarge(f"more than {MAX_VALUES:,} values (aliases counted as often as used)")
        if isinstance(item, dict):
            waiting.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list | tuple):
            waiting.extend((child, depth + 1) for child in item)
    return value


def read_json(text: str | bytes, **options: Any) -> Any:
    """`json.loads(text, **options)` within the bounds; ValueError if the text is not JSON
    (json.JSONDecodeError, with its line) or crosses a bound (TooLarge)."""
    try:
        return within_bounds(json.loads(text, **options))
    except RecursionError:  # deeper than Python's own stack, long before MAX_DEPTH is asked
        raise TooLarge(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # int() refuses more digits than sys.get_int_max_str_digits()
        if not str(error).startswith("Exceeds the limit"):
            raise
        raise TooLarge(f"a number of more than {sys.get_int_max_str_digits()} digits") from None


class NotAFile(OSError):
    """A path that holds something other than a regular file; `strerror` says what."""

    def __init__(self, path: Path, kind: str, wanted: str = "a file") -> None:
        super().__init__(f"{path}: is {kind}, not {wanted}")
        self.strerror = f"is {kind}, not {wanted}"


def kind_of(mode: int) -> str:
    """What a file mode says is there, as a message names it."""
    return KINDS.get(stat.S_IFMT(mode), "a device")


def what_is_at(path: Path) -> str:
    """What `path` holds, following links: a kind_of name, "a link loop" or "nothing"."""
    try:
        return kind_of(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return "nothing"
    except OSError as error:
        return "a link loop" if error.errno == errno.ELOOP else f"unreadable ({error.strerror})"


def read_file(path: Path) -> str:
    """The UTF-8 text of the regular file at `path`; UnicodeDecodeError if it is not UTF-8."""
    return read_bytes(path).decode("utf-8")


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file at `path` (see `open_regular`)."""
    with open_regular(path) as file:
        return file.read()


def open_regular(path: Path, flags: int = os.O_RDONLY) -> BinaryIO:
    """The regular file at `path`, open (binary) as `flags` say: opened without blocking and
    checked once open (a FIFO or /dev/zero is never read); NotAFile says what was there."""
    try:
        descriptor = os.open(path, flags | os.O_NONBLOCK, 0o666)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotAFile(path, "a link loop") from None
        raise
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise NotAFile(path, kind_of(mode))
    return os.fdopen(descriptor, "r+b" if flags & os.O_RDWR else "rb")
