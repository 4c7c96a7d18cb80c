"""Where session files live: Pi's `<root>/--<cwd>--/<time>_<id>.jsonl` under the course's own
root (never `~/.pi`); a taken name gets the first free suffix, never overwriting."""

from __future__ import annotations

import re
from pathlib import Path

from pi.coding_agent.session.entries import (CURRENT_VERSION, Clock, IdSource, SessionError,
                                             SessionHeader, iso_timestamp)
from pi.coding_agent.session.writer import Opener, SessionWriter, open_text


def sessions_root(home: Path, override: Path | None = None) -> Path:
    """`~/.pi-course/agent/sessions`, or `override`; anything inside `~/.pi` is refused."""
    root = override or home / ".pi-course" / "agent" / "sessions"
    if root.expanduser().resolve().is_relative_to((home / ".pi").resolve()):
        raise SessionError(f"{root}: inside Pi's own folder {home / '.pi'}; the course "
                           "keeps its sessions elsewhere")
    return root


def session_path(root: Path, cwd: str, timestamp: str, session_id: str) -> Path:
    """The first free name for this session: Pi's (`2026-11-30T16:31:02.345Z` and `abc` →
    `2026-11-30T16-31-02-345Z_abc.jsonl`), else the same with `-2`, `-3`, …"""
    folder, stem = root / cwd_folder_name(cwd), f"{re.sub(r'[:.]', '-', timestamp)}_{session_id}"
    candidate, number = folder / f"{stem}.jsonl", 1
    while candidate.exists():
        number += 1
        candidate = folder / f"{stem}-{number}.jsonl"
    return candidate


def cwd_folder_name(cwd: str) -> str:
    """Pi's folder name for a working directory: `/home/me/app` → `--home-me-app--`."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def start_session(root: Path, cwd: str, session_id: str, *, ids: IdSource, clock: Clock,
                  parent_session: str | None = None, opener: Opener = open_text) -> SessionWriter:
    """Create the folder and file of a new session and write its header."""
    timestamp = iso_timestamp(clock())
    header = SessionHeader(version=CURRENT_VERSION, id=session_id, timestamp=timestamp,
                           cwd=cwd, parent_session=parent_session)
    return SessionWriter.create(session_path(root, cwd, timestamp, session_id), header,
                                ids=ids, clock=clock, opener=opener)
