"""Bounds on what is read from outside: what a path holds, how deep data nests, how much.

A file, a stream chunk or an RPC line is written by someone else. `[[[[…` 100,000 levels
deep makes Python's parser (and later pydantic, or our own printing) run out of stack, and a
YAML document whose aliases refer to aliases ("billion laughs") loads as a few shared lists
that expand to billions of values the moment anything walks them. So everything the course
reads goes through `read_json` (YAML: PyYAML's safe loader, then `within_bounds`), and so
through `within_bounds`, a walk that stops as soon as a bound is crossed: it costs at
most MAX_VALUES steps, however large the value claims to be. And a file named by a user or
a project is read with `read_file`, which opens only a regular file: a folder, a FIFO (which
never answers), a device (`/dev/zero` never ends) or a link loop is refused by what it is.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

MAX_DEPTH = 200  # levels of nesting; the course's own data needs about ten
MAX_VALUES = 1_000_000  # values, counting each use of a shared (aliased) value again


class TooLarge(ValueError):
    """Data that crosses a bound; its text says which, in words a user can act on."""


def within_bounds(value: Any) -> Any:
    """`value` itself, once a walk has found it no deeper than MAX_DEPTH and holding no
    more than MAX_VALUES values; otherwise TooLarge."""
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
    """`json.loads(text, **options)` within the bounds above; ValueError if the text is not
    JSON (json.JSONDecodeError, with its line) or crosses a bound (TooLarge)."""
    try:
        value = json.loads(text, **options)
    except RecursionError:  # deeper than Python's own stack, long before MAX_DEPTH is asked
        raise TooLarge(f"nested deeper than {MAX_DEPTH} levels") from None
    return within_bounds(value) if could_cross_a_bound(text) else value


def could_cross_a_bound(text: str | bytes) -> bool:
    """Whether JSON text is big enough to cross a bound. Each value takes at least one
    character and each level of nesting one bracket, so a short stream chunk or RPC line
    needs no walk: counting two characters is cheaper than walking what they built."""
    brackets = text.count("[") + text.count("{") if isinstance(text, str) \
        else text.count(b"[") + text.count(b"{")
    return brackets > MAX_DEPTH or len(text) > MAX_VALUES


class NotAFile(OSError):
    """A path that holds something other than a regular file; `strerror` says what."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path}: is {kind}, not a file")
        self.strerror = f"is {kind}, not a file"


def kind_of(mode: int) -> str:
    """What a file mode says is there, as a message names it."""
    kinds = ((stat.S_ISREG, "a file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "a device")


def what_is_at(path: Path) -> str:
    """What `path` holds, following links: a kind_of name, "a link loop" or "nothing"."""
    try:
        return kind_of(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return "nothing"
    except OSError as error:
        return "a link loop" if error.errno == errno.ELOOP else f"unreadable ({error.strerror})"


def read_file(path: Path) -> str:
    """The UTF-8 text of the regular file at `path` (read_bytes); UnicodeDecodeError if the
    bytes are not UTF-8."""
    return read_bytes(path).decode("utf-8")


def read_bytes(path: Path) -> bytes:
    """The bytes of the regular file at `path`. It is opened without blocking and checked
    once open, so nothing else is ever read; NotAFile says what was there instead
    (FileNotFoundError if nothing)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except IsADirectoryError:
        raise NotAFile(path, "a folder") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotAFile(path, "a link loop") from None
        raise
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(path, kind_of(mode))
        with os.fdopen(os.dup(descriptor), "rb") as file:
            return file.read()
    finally:
        os.close(descriptor)
