"""Writing a session file: append-only, one flushed line per entry, and nothing more after a
failed write (a file with a hole in its history is worse than a short one)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

from pi.ai import AgentMessage, ImageContent, SystemMessage, TextContent, Usage
from pi.ai.transcript import replay
from pi.ai.messages import json_text
from pi.coding_agent.messages import AnyMessage, CodingMessage
from pi.coding_agent.session.context import SessionContext, build_context
from pi.coding_agent.session.entries import (CURRENT_VERSION, BranchSummaryEntry, Clock,
                                             CompactionEntry, ContextEditEntry, CustomEntry,
                                             CustomMessageEntry, IdSource, LabelEntry, MessageEntry,
                                             ModelChangeEntry, Replacement, SessionEntry,
                                             SessionError, SessionHeader, SessionInfoEntry,
                                             ThinkingLevel, ThinkingLevelChangeEntry, UsageEntry,
                                             dump_line, fresh_id, iso_timestamp)
from pi.coding_agent.session.reader import LoadedSession, committed_lines
from pi.coding_agent.session.tree import SessionTree

Opener = Callable[[Path, str], TextIO]


def open_text(path: Path, mode: str) -> TextIO:
    """Open for writing: UTF-8, and `\\n` stays `\\n` on every system."""
    return cast(TextIO, path.open(mode, encoding="utf-8", newline="\n"))


class SessionWriter:
    """Appends entries to one session file; `tree` and `leaf_id` follow what was written."""

    def __init__(self, path: Path, mode: str, header: SessionHeader, tree: SessionTree,
                 *, ids: IdSource, clock: Clock, opener: Opener = open_text) -> None:
        """Open `path` to append ("a"), or to start it ("x": it must not exist; its folder is
        made); a failure to open is one SessionError line."""
        try:
            if mode == "x":
                path.parent.mkdir(parents=True, exist_ok=True)
            self._file = opener(path, mode)
        except OSError as error:
            raise SessionError(f"{path}: {error.strerror or error}") from None
        self.path, self.header, self.tree = path, header, tree
        self.leaf_id: str | None = tree.leaf_on_load
        self.ids, self.clock, self.opener = ids, clock, opener
        self.failure: SessionError | None = None  # the write that failed; none come after it

    @classmethod
    def create(cls, path: Path, header: SessionHeader, *, ids: IdSource, clock: Clock,
               opener: Opener = open_text) -> SessionWriter:
        """Start a new file (it must not exist yet) and write its header line."""
        writer = cls(path, "x", header, SessionTree(), ids=ids, clock=clock, opener=opener)
        writer.write(json_text(dump_line(header)) + "\n")
        return writer

    @classmethod
    def resume(cls, session: LoadedSession, *, ids: IdSource, clock: Clock,
               opener: Opener = open_text) -> SessionWriter:
        """Append to a file just read; the writer takes over its tree, leaf = the last entry."""
        if session.migrated:
            raise SessionError(f"{session.path}: a version {session.file_version} file is not "
                               "appended to (it is only read)")
        if session.warnings:
            raise SessionError(f"{session.path}: ends with an unfinished line; not appended to")
        return cls(session.path, "a", session.header, session.tree, ids=ids, clock=clock,
                   opener=opener)

    def write(self, line: str) -> None:
        """Write one finished line and flush it; a failure is kept in `failure`, raised again
        by every later write."""
        if self.failure is not None:
            raise self.failure
        try:
            self._file.write(line)
            self._file.flush()
        except Exception as error:
            self.failure = SessionError(f"{self.path}: write failed ({describe(error)}); nothing "
                                        "more is written")
            raise self.failure from error

    def append(self, entry: SessionEntry, line: bytes | None = None) -> str:
        """Write a complete entry (its id must be new), or `line`, the very line it was in
        another file; it becomes the leaf. Returns its id."""
        if entry.id in self.tree.by_id:
            raise SessionError(f"{self.path}: entry id {entry.id} is already used")
        self.write(json_text(dump_line(entry)) + "\n" if line is None else line.decode("utf-8"))
        self.tree.add(entry)
        self.leaf_id = entry.id
        return entry.id

    def new(self, model: Callable[..., SessionEntry], /, **fields: Any) -> str:
        """Append a `model` entry with a fresh id, the leaf as parent and the clock's time."""
        return self.append(model(id=fresh_id(self.ids, self.tree.by_id), parent_id=self.leaf_id,
                                 timestamp=iso_timestamp(self.clock()), **fields))

    def append_message(self, message: AgentMessage | CodingMessage) -> str:
        return self.new(MessageEntry, message=message)

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self.new(ModelChangeEntry, provider=provider, model_id=model_id)

    def append_thinking_level_change(self, level: ThinkingLevel) -> str:
        return self.new(ThinkingLevelChangeEntry, thinking_level=level)

    def append_compaction(self, summary: str, first_kept_entry_id: str | None,
                          tokens_before: int, details: Any = None, from_hook: bool | None = None,
                          usage: Usage | None = None) -> str:
        """A compaction, with the prompt replayed from the context (Pi 1.x's appendCompaction);
        keeping nothing (None) is written as Pi 1.x does, as its own id."""
        entry_id, now = fresh_id(self.ids, self.tree.by_id), self.clock()
        return self.append(CompactionEntry(
            id=entry_id, parent_id=self.leaf_id, timestamp=iso_timestamp(now), summary=summary,
            first_kept_entry_id=first_kept_entry_id or entry_id, tokens_before=tokens_before,
            details=details, usage=usage, from_hook=from_hook,
            system_message=replayed_prompt(self.context().messages, now)))

    def append_usage(self, kind: str, provider: str, model: str, usage: Usage,
                     note: str | None = None) -> str:
        return self.new(UsageEntry, kind=kind, provider=provider, model=model, usage=usage,
                        note=note or None)

    def append_context_edit(self, target_id: str, content: str | tuple[Any, ...] | None) -> str:
        """Replace what a model sees of an earlier message on this branch, or (None) hide it
        from every later context; a string for a reply or tool result becomes a text block."""
        target = self.require(target_id)
        if target not in self.leaf_path():
            raise SessionError(f"{self.path}: entry {target_id} is not on the active branch")
        role = target.message.role if isinstance(target, MessageEntry) else target.type
        if role not in ("user", "assistant", "toolResult", "custom_message"):
            raise SessionError(f"{self.path}: entry {target_id} ({role}) has no content a "
                               f"context edit can replace")
        if isinstance(content, str) and role in ("assistant", "toolResult"):
            content = (TextContent(text=content),)
        replacement = None if content is None else Replacement(content=content)
        return self.new(ContextEditEntry, target_id=target_id, replacement=replacement)

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        return self.new(CustomEntry, custom_type=custom_type, data=data)

    def append_custom_message(self, custom_type: str,
                              content: str | tuple[TextContent | ImageContent, ...],
                              display: bool, details: Any = None) -> str:
        return self.new(CustomMessageEntry, custom_type=custom_type, content=content,
                        display=display, details=details)

    def append_label(self, target_id: str, label: str | None) -> str:
        """Set (or, with None or "", clear) the label of an entry; the target must exist."""
        self.require(target_id)
        return self.new(LabelEntry, target_id=target_id, label=label)

    def append_session_info(self, name: str) -> str:
        return self.new(SessionInfoEntry, name=name.strip())

    def branch(self, entry_id: str | None) -> None:
        """Move the leaf (None = before the first entry); nothing is written."""
        if entry_id is not None:
            self.require(entry_id)
        self.leaf_id = entry_id

    def branch_with_summary(self, from_id: str | None, summary: str, details: Any = None,
                            from_hook: bool | None = None, usage: Usage | None = None) -> str:
        """Move the leaf to `from_id` and append a summary of the branch left behind there."""
        self.branch(from_id)
        return self.new(BranchSummaryEntry, from_id=from_id or "root", summary=summary,
                        details=details, usage=usage, from_hook=from_hook)

    def require(self, entry_id: str) -> SessionEntry:
        entry = self.tree.by_id.get(entry_id)
        if entry is None:
            raise SessionError(f"{self.path}: no entry with id {entry_id}")
        return entry

    def leaf_path(self) -> list[SessionEntry]:
        """Pi's `getBranch`: the entries from the root to the leaf (none before the first)."""
        return self.tree.path_to(self.leaf_id) if self.leaf_id is not None else []

    def context(self) -> SessionContext:
        return build_context(self.tree, self.leaf_id)

    def close(self) -> None:
        """Close the file; a failure here is reported like a failed write."""
        try:
            self._file.close()
        except Exception as error:
            closing = SessionError(f"{self.path}: closing failed ({describe(error)})")
            self.failure = self.failure or closing
            raise closing from error


def replayed_prompt(messages: Sequence[AnyMessage], at_ms: int) -> SystemMessage | None:
    """Pi's getCurrentSystemMessage, stamped `at_ms`: the system messages replayed into one
    (their texts joined, the live sections, the current tools)."""
    replayed = replay([message for message in messages if isinstance(message, SystemMessage)])
    if not replayed.found:
        return None
    return SystemMessage(content=replayed.text, sections=replayed.sections or None,
                         tools_added=replayed.tools or None, timestamp=at_ms)


def describe(error: Exception) -> str:
    strerror = getattr(error, "strerror", None)
    return str(strerror) if strerror else str(error) or type(error).__name__


# The fields a fork may change in a copied line, as the file spells them.
WIRE_NAMES = {"parent_id": "parentId", "first_kept_entry_id": "firstKeptEntryId"}


def branched_path(writer: SessionWriter, leaf_id: str) -> list[tuple[SessionEntry, bytes]]:
    """(entry, its line as read back from the file) root → `leaf_id` without label entries.
    As in Pi 1.6, each entry hangs below the one kept before it (the first below none), and a
    compaction that kept from a label keeps from the entry after it; a line so changed changes
    in `parentId` or `firstKeptEntryId` only."""
    lines = [raw for _, raw in committed_lines(writer.path, [])][1:]  # after the header
    if len(lines) != len(writer.tree.entries):  # the file holds the tree's entries in order
        raise SessionError(f"{writer.path}: the file no longer holds what was written; "
                           "not forked")
    line_of = {entry.id: raw for entry, raw in zip(writer.tree.entries, lines, strict=True)}
    path = writer.tree.path_to(leaf_id)
    kept: list[tuple[SessionEntry, bytes]] = []
    for entry in path:
        if entry.type == "label":
            continue
        changes: dict[str, str | None] = {}
        parent_id = kept[-1][0].id if kept else None
        if entry.parent_id != parent_id:
            changes["parent_id"] = parent_id
        if isinstance(entry, CompactionEntry):
            first_kept = past_labels(path, entry.first_kept_entry_id)
            if first_kept != entry.first_kept_entry_id:
                changes["first_kept_entry_id"] = first_kept
        line = line_of[entry.id]
        if changes:
            entry = entry.model_copy(update=changes)
            wire = {WIRE_NAMES[name]: value for name, value in changes.items()}
            line = (json_text({**json.loads(line), **wire}) + "\n").encode()
        kept.append((entry, line))
    return kept


def past_labels(path: Sequence[SessionEntry], entry_id: str) -> str:
    """`entry_id`, or, when it is a label on `path`, the first entry after it that is not one
    (what a fork, which drops labels, keeps in its place)."""
    ids = [entry.id for entry in path]
    if entry_id not in ids:
        return entry_id
    return next((entry.id for entry in path[ids.index(entry_id):] if entry.type != "label"),
                entry_id)


def fork_session(writer: SessionWriter, path: Path, session_id: str,
                 leaf_id: str | None = None) -> SessionWriter:
    """A new file with only the path to `leaf_id` (default: the writer's leaf), its header
    naming the old file as `parentSession`; its lines are copied byte for byte and the labels
    of path entries are appended at the end."""
    leaf = leaf_id or writer.leaf_id
    if leaf is None:
        raise SessionError(f"{writer.path}: nothing to fork, the leaf is before the first entry")
    copied = branched_path(writer, writer.require(leaf).id)
    header = SessionHeader(version=CURRENT_VERSION, id=session_id, cwd=writer.header.cwd,
                           timestamp=iso_timestamp(writer.clock()), parent_session=str(writer.path))
    forked = SessionWriter.create(path, header, ids=writer.ids, clock=writer.clock,
                                  opener=writer.opener)
    for entry, line in copied:
        forked.append(entry, line)
    ids = {entry.id for entry, _ in copied}
    for target, label in writer.tree.labels.items():
        if target in ids:
            forked.append_label(target, label)
    return forked
