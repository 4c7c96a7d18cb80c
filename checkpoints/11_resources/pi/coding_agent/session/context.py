"""What a model is shown for one leaf (Pi's buildSessionContext): the path's messages, the
latest compaction's summary instead of what it replaced, edits applied, thinking level, model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi.ai import AssistantMessage, Message, TextContent
from pi.coding_agent.messages import AnyMessage, convert_to_llm
from pi.coding_agent.session.entries import (CompactionEntry, ContextEditEntry, MessageEntry,
                                             ModelChangeEntry, Replacement, SessionEntry,
                                             ThinkingLevelChangeEntry, entry_messages)
from pi.coding_agent.session.tree import SessionTree


@dataclass(frozen=True)
class ModelRef:
    """The model a context continues with; Pi's `{provider, modelId}`."""

    provider: str
    model_id: str


@dataclass(frozen=True)
class SessionContext:
    """The messages for one leaf, each with the id of the entry it came from."""

    leaf_id: str | None
    path_length: int
    messages: tuple[AnyMessage, ...]
    entry_ids: tuple[str, ...]
    thinking_level: str = "off"
    model: ModelRef | None = None

    def llm_messages(self) -> tuple[Message, ...]:
        """The same context as a model receives it (coding roles become user messages)."""
        return convert_to_llm(list(self.messages))


def build_context(tree: SessionTree, leaf_id: str | None) -> SessionContext:
    """Pi's buildSessionContext: None → empty; an unknown id → the last entry of the file."""
    if leaf_id is None or not tree.entries:
        return SessionContext(None, 0, (), ())
    leaf = leaf_id if leaf_id in tree.by_id else tree.entries[-1].id
    path = tree.path_to(leaf)
    pairs = [(entry.id, message) for entry, messages in projection(path) for message in messages]
    thinking, model = settings_on(path)
    return SessionContext(leaf, len(path), tuple(message for _, message in pairs),
                          tuple(entry_id for entry_id, _ in pairs), thinking, model)


def projection(path: Sequence[SessionEntry]) -> list[tuple[SessionEntry, tuple[AnyMessage, ...]]]:
    """Pi's buildSessionProjection: each entry a model still sees, with its messages (the
    latest compaction first: the prompt it recorded, then its summary); the latest context
    edit of an entry among them replaces its content, or (null) leaves it out."""
    compaction, shown = visible_entries(path)
    pairs: list[tuple[SessionEntry, tuple[AnyMessage, ...]]] = [
        (entry, () if isinstance(entry, CompactionEntry) else entry_messages(entry))
        for entry in shown]
    if compaction is not None:
        pairs.insert(0, (compaction, entry_messages(compaction)))
    edits = {entry.target_id: entry.replacement for entry, _ in pairs
             if isinstance(entry, ContextEditEntry)}
    return [(entry, edited(edits[entry.id], messages) if entry.id in edits else messages)
            for entry, messages in pairs]


def edited(replacement: Replacement | None,
           messages: tuple[AnyMessage, ...]) -> tuple[AnyMessage, ...]:
    """Pi's projectContextEntry: None leaves the messages out; otherwise only a user,
    assistant, tool result or custom message changes, and only its content (a string
    becomes one text block for a reply or tool result)."""
    if replacement is None:
        return ()
    content = replacement.content
    changed = []
    for message in messages:
        if message.role in ("assistant", "toolResult") and isinstance(content, str):
            message = message.model_copy(update={"content": (TextContent(text=content),)})
        elif message.role in ("user", "assistant", "toolResult", "custom"):
            message = message.model_copy(update={"content": content})
        changed.append(message)
    return tuple(changed)


def latest_compaction(path: Sequence[SessionEntry]) -> int:
    """The index of the last compaction entry on the path, or -1 when there is none."""
    return next((i for i in reversed(range(len(path))) if path[i].type == "compaction"), -1)


def visible_entries(
    path: Sequence[SessionEntry],
) -> tuple[CompactionEntry | None, Sequence[SessionEntry]]:
    """The latest compaction on the path (or None) and the entries shown after its summary:
    the whole path without one; with one, the entries before it from `firstKeptEntryId` on
    (none, when that id is not before it on the path) except system messages (Pi 1.6: the
    compaction carries the declaration in force), then all after it."""
    latest = latest_compaction(path)
    if latest < 0:
        return None, path
    compaction = path[latest]
    assert isinstance(compaction, CompactionEntry)
    before = [entry.id for entry in path[:latest]]
    first_kept = compaction.first_kept_entry_id
    kept = path[before.index(first_kept):latest] if first_kept in before else []
    kept = [entry for entry in kept if not (
        isinstance(entry, MessageEntry) and entry.message.role == "system")]
    return compaction, [*kept, *path[latest + 1:]]


def settings_on(path: Sequence[SessionEntry]) -> tuple[str, ModelRef | None]:
    """The thinking level and model in force at the end of the path: each set by the last
    entry that says so (a model change, or a reply, which names the model that wrote it)."""
    level: str | None = None
    model: ModelRef | None = None
    for entry in reversed(path):
        if level is None and isinstance(entry, ThinkingLevelChangeEntry):
            level = entry.thinking_level
        elif model is None and isinstance(entry, ModelChangeEntry):
            model = ModelRef(entry.provider, entry.model_id)
        elif model is None and isinstance(entry, MessageEntry) and isinstance(
                entry.message, AssistantMessage):
            model = ModelRef(entry.message.provider, entry.message.model)
    return level or "off", model
