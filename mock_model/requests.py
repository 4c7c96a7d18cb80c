"""Every request the MockModel received, exactly as sent, in memory linear in the messages.

An agent sends its whole transcript with every request: request k holds the k messages of
request k-1 plus one or two new ones. Copying each request whole (to keep it as it was sent)
costs time and memory in the square of the conversation's length: 1,000 turns kept almost a
gigabyte. So the log copies each *message* once. A request whose messages begin with the
messages of the conversation so far (the same objects, or equal ones) is stored as "the
first n messages of that conversation", and only its new messages are copied.

The one assumption: what is sent again is what it was, grown. A message object sent again is
the message it was when first sent, and a list of messages sent again only had messages
added at its end: an agent re-sends its transcript, it does not edit it. A caller that edits
a message must send a new object, in a new list (equal content is recognised either way, an
edited copy is copied again).

Reading `log[i]` builds request i afresh (a deep copy), so a test may inspect or even change
what it gets without changing the log. Its JSON size, the MockModel's input-token estimate,
is kept per message, so it too costs the same at turn 10 and at turn 10,000.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from .usage import request_characters as json_size

MESSAGES = "messages"


@dataclass
class Conversation:
    """The messages of one conversation, append-only: what was sent, a copy, the sizes."""

    sent: list[Any] = field(default_factory=list)  # the objects received, kept to compare
    copies: list[Any] = field(default_factory=list)  # their copies, taken when they arrived
    sizes: list[int] = field(default_factory=lambda: [0])  # sizes[n]: JSON size of the first n
    last_list: list[Any] | None = None  # the list the last request held its messages in

    def continued_by(self, messages: list[Any]) -> bool:
        """True when `messages` begins with every message of this conversation."""
        known = len(self.sent)
        if messages is self.last_list:  # the same list again: it grew, as a transcript does
            return len(messages) >= known
        return len(messages) >= known and messages[:known] == self.sent

    def extend(self, messages: list[Any]) -> None:
        """Take the messages after the known ones; each is copied and sized once."""
        self.last_list = messages
        for message in messages[len(self.sent):]:
            self.sent.append(message)
            self.copies.append(copy.deepcopy(message))
            self.sizes.append(self.sizes[-1] + json_size(message))

    def list_size(self, count: int) -> int:
        """JSON size of the list of the first `count` messages: `[a, b]`."""
        return 2 + self.sizes[count] + 2 * max(count - 1, 0)


@dataclass(frozen=True)
class Captured:
    """One request: its other fields copied, its messages as a prefix of a conversation."""

    fields: dict[str, Any]  # every field but the messages, in the order they were sent
    conversation: Conversation | None  # None: the request had no list of messages
    count: int
    size: int  # the whole request's JSON size

    def rebuild(self) -> dict[str, Any]:
        request = copy.deepcopy(self.fields)
        if self.conversation is not None:
            request[MESSAGES] = copy.deepcopy(self.conversation.copies[: self.count])
        return request


class RequestLog(Sequence[dict[str, Any]]):
    """The requests received, oldest first; reads like a list of request dicts."""

    def __init__(self) -> None:
        self._captured: list[Captured] = []
        self._conversation: Conversation | None = None

    def capture(self, request: Mapping[str, Any]) -> int:
        """Record `request` as it is now; returns its size as canonical JSON."""
        fields = {key: value for key, value in request.items() if key != MESSAGES}
        messages = request.get(MESSAGES)
        fields = self._shared_fields(fields)
        if not isinstance(messages, list):
            if MESSAGES in request:
                fields = {**fields, MESSAGES: copy.deepcopy(messages)}
            self._captured.append(Captured(fields, None, 0, json_size(fields)))
            return self._captured[-1].size
        conversation = self._conversation
        if conversation is None or not conversation.continued_by(messages):
            conversation = self._conversation = Conversation()
        conversation.extend(messages)
        fields_size = json_size({**fields, MESSAGES: []}) - 2
        size = fields_size + conversation.list_size(len(messages))
        self._captured.append(Captured(fields, conversation, len(messages), size))
        return size

    def _shared_fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A copy of the fields, or the previous request's copy when they are equal (the
        tools and the system prompt seldom change between two requests)."""
        if self._captured and self._captured[-1].fields == fields:
            return self._captured[-1].fields
        return copy.deepcopy(fields)

    @property
    def stored_messages(self) -> int:
        """How many message copies the log holds (each message once, however often sent)."""
        conversations = {id(c.conversation): c.conversation for c in self._captured
                         if c.conversation is not None}
        return sum(len(conversation.copies) for conversation in conversations.values())

    def __len__(self) -> int:
        return len(self._captured)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [captured.rebuild() for captured in self._captured[index]]
        return self._captured[index].rebuild()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (captured.rebuild() for captured in self._captured)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RequestLog | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RequestLog({list(self)!r})"
