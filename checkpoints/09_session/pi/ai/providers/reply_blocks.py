"""The blocks of a reply while it streams in, for every wire adapter. So that decoding stays
linear, a block joins its pieces only when read, and a long block (over `EXACT_UP_TO`) is shown
afresh only once it grew by a quarter; every `*_end` and terminal event shows it whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_core import from_json

from pi.ai.bounded import TooLarge, read_json, within_bounds
from pi.ai.content import AssistantBlock, TextContent, ThinkingContent, ToolCall
from pi.ai.redact import clip


class WireError(Exception):
    """The server sent something this adapter cannot read; the reply ends as an error."""


EXACT_UP_TO = 1_000  # characters: a block up to this size is shown exactly in every event


@dataclass
class Block:
    """One content block while it grows; for a tool call, `text` is its arguments' JSON."""

    type: Literal["text", "thinking", "toolCall"]
    id: str = ""
    name: str = ""
    signature: str | None = None  # which wire field the reasoning came in
    redacted: bool = False  # encrypted reasoning: no text, only `signature` to send back
    arguments: dict[str, Any] | None = None  # set once the call is complete
    position: int = 0  # its index in the reply's content, set when it begins
    pieces: list[str] = field(default_factory=list)  # the text, joined only when read
    size: int = 0  # characters so far
    shown: AssistantBlock | None = None  # the content last built, and the state it shows
    shown_as: tuple[int, bool, str | None] | None = None

    @property
    def text(self) -> str:
        """The pieces joined; a character whose two halves (a surrogate pair, as JSON escapes
        them) came in different pieces is made whole again, a lone half stays as it is."""
        joined = "".join(self.pieces).encode("utf-16-le", "surrogatepass")
        self.pieces[:] = [joined.decode("utf-16-le", "surrogatepass")]
        return self.pieces[0]

    def add(self, piece: str) -> None:
        self.pieces.append(piece)
        self.size += len(piece)

    def content(self, exact: bool = True) -> AssistantBlock:
        """The block as a message shows it, rebuilt only when it changed and either `exact`
        is asked or a rebuild is worth it (see the top)."""
        state = (self.size, self.arguments is not None, self.signature)
        if self.shown is None or (state != self.shown_as and (exact or self.worth_rebuilding())):
            self.shown, self.shown_as = self.build(), state
        return self.shown

    def worth_rebuilding(self) -> bool:
        """A small block always; a long one once it grew by a quarter since it was built."""
        built = self.shown_as[0] if self.shown_as is not None else 0
        return self.size <= EXACT_UP_TO or 4 * (self.size - built) >= built

    def build(self) -> AssistantBlock:
        if self.type == "text":
            return TextContent(text=self.text)
        if self.type == "thinking":
            return ThinkingContent(thinking=self.text, thinking_signature=self.signature,
                                   redacted=self.redacted or None)
        arguments = parse_partial_json(self.text) if self.arguments is None else self.arguments
        return ToolCall(id=self.id, name=self.name, arguments=arguments)


def parse_partial_json(text: str) -> dict[str, Any]:
    """The arguments readable from the JSON text so far (pydantic's partial parser, which keeps
    a string cut short); `{}` when nothing is readable."""
    try:
        value = within_bounds(from_json(text, allow_partial="trailing-strings"))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def json_object(text: str, what: str) -> dict[str, Any]:
    """The JSON object `text` holds (within the bounds), or WireError saying what is wrong with
    `what` ("a stream event", "the arguments"), quoting the start of the text."""
    try:
        value = read_json(text)
    except TooLarge as error:
        raise WireError(f"{what}: {error}") from None
    except ValueError as error:
        raise WireError(f"{what}: not valid JSON ({error}): {clip(text, 200)}") from None
    if not isinstance(value, dict):
        raise WireError(f"{what}: not a JSON object: {clip(text, 200)}")
    return value


def strict_arguments(text: str) -> tuple[dict[str, Any], str]:
    """The complete arguments and "", or `{}` and what is wrong: never made-up arguments."""
    try:
        return json_object(text or "{}", "the arguments"), ""
    except WireError as error:
        return {}, str(error)
