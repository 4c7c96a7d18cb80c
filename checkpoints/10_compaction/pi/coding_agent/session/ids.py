"""Entry ids and the clock, always injected (a test gets the same file byte for byte on
every run), and timestamps written as JavaScript writes them, because Pi reads them too.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Container
from datetime import UTC, datetime, timedelta

from pi.coding_agent.session.errors import SessionError

IdSource = Callable[[], str]
Clock = Callable[[], int]  # milliseconds since 1970-01-01 UTC, like JavaScript's Date.now()
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_TRIES = 100  # Pi's generateId tries 100 random ids before giving up


def sequential_ids(start: int = 1) -> IdSource:
    """Ids 00000001, 00000002, …: deterministic, for tests, demos and migrating old files."""
    counter = itertools.count(start)
    return lambda: f"{next(counter):08x}"


def random_ids(rng: random.Random) -> IdSource:
    """Pi's shape of id (8 lowercase hex digits) drawn from a generator the caller owns."""
    return lambda: f"{rng.getrandbits(32):08x}"


def fresh_id(source: IdSource, taken: Container[str]) -> str:
    """An id from `source` that no entry uses yet; refuses a source that keeps repeating."""
    candidate, tries = source(), 1
    while candidate in taken:
        if tries == MAX_TRIES:
            raise SessionError(f"the id source gave {MAX_TRIES} ids that are all taken")
        candidate, tries = source(), tries + 1
    return candidate


def iso_timestamp(ms: int) -> str:
    """JavaScript's `new Date(ms).toISOString()`: UTC, milliseconds, a `Z` at the end."""
    moment = EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def ms_from_iso(text: str) -> int:
    """Milliseconds since the epoch for an ISO timestamp (a time without offset is UTC)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(milliseconds=1)


def fixed_clock(start_ms: int, step_ms: int = 1) -> Clock:
    """A clock that starts at `start_ms` and advances `step_ms` at every reading."""
    return itertools.count(start_ms, step_ms).__next__
