"""The kinds of entry a session can append, one method each.

Each method builds one entry of Pi's v3 format with a fresh id, the current leaf as its
parent and the clock's time (`next_base`), and hands it to `append`, which writes it and
makes it the new leaf. The writing itself, and what happens when it fails, is the writer's
business (writer.py); here it is only about what each entry holds.
"""

from __future__ import annotations

from typing import Any, TypedDict

from pi.ai import AgentMessage, ImageContent, TextContent
from pi.coding_agent.messages import CodingMessage
from pi.coding_agent.session.entries import (
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevel,
    ThinkingLevelChangeEntry,
)


class Base(TypedDict):
    """What every entry gets from the writer: id, parent and time."""

    id: str
    parent_id: str | None
    timestamp: str


class EntryAppends:
    """Typed appends; a subclass supplies `append`, `next_base` and `require`."""

    def append(self, entry: SessionEntry) -> str:
        raise NotImplementedError

    def next_base(self) -> Base:
        raise NotImplementedError

    def require(self, entry_id: str) -> SessionEntry:
        raise NotImplementedError

    def append_message(self, message: AgentMessage | CodingMessage) -> str:
        return self.append(MessageEntry(message=message, **self.next_base()))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self.append(ModelChangeEntry(provider=provider, model_id=model_id,
                                            **self.next_base()))

    def append_thinking_level_change(self, level: ThinkingLevel) -> str:
        return self.append(ThinkingLevelChangeEntry(thinking_level=level, **self.next_base()))

    def append_compaction(self, summary: str, first_kept_entry_id: str, tokens_before: int,
                          details: Any = None, from_hook: bool | None = None) -> str:
        return self.append(CompactionEntry(
            summary=summary, first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before, details=details, from_hook=from_hook,
            **self.next_base()))

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        return self.append(CustomEntry(custom_type=custom_type, data=data, **self.next_base()))

    def append_custom_message(self, custom_type: str,
                              content: str | tuple[TextContent | ImageContent, ...],
                              display: bool, details: Any = None) -> str:
        return self.append(CustomMessageEntry(custom_type=custom_type, content=content,
                                              display=display, details=details,
                                              **self.next_base()))

    def append_label(self, target_id: str, label: str | None) -> str:
        """Set (or, with None or "", clear) the label of an entry; the target must exist."""
        self.require(target_id)
        return self.append(LabelEntry(target_id=target_id, label=label, **self.next_base()))

    def append_session_info(self, name: str) -> str:
        return self.append(SessionInfoEntry(name=name.strip(), **self.next_base()))
