"""What the target model can take, decided on canonical messages before any conversion: a new
list is built (the transcript stays as it was), by the same rules for every provider."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pi.ai.content import AssistantBlock, TextContent, ToolCall, UserBlock
from pi.ai.messages import AssistantMessage, ToolResultMessage, UserMessage
from pi.ai.model import Model
from pi.ai.transcript import Turn

IMAGE_OMITTED = "[image omitted: this model does not accept images]"
NO_RESULT = "No result provided"
WithContent = TypeVar("WithContent", UserMessage, ToolResultMessage)


def compat_messages(messages: Sequence[Turn], model: Model,
                    own_thinking: bool = False) -> list[Turn]:
    """The messages as `model` can take them (Pi's rules): failed or aborted replies are
    skipped; a tool call left unanswered gets an error result "No result provided" (APIs
    refuse unanswered calls); thinking goes through `replayable`, images `without_images`."""
    out: list[Turn] = []
    pending: list[ToolCall] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            pending = [call for call in pending if call.id != message.tool_call_id]
            out.append(without_images(message, model))
            continue
        out.extend(missing_results(pending, message.timestamp))
        pending = []
        if isinstance(message, UserMessage):
            out.append(without_images(message, model))
        elif message.stop_reason not in ("error", "aborted"):
            kept = replayable(message, model, own_thinking)
            if kept is not None:
                out.append(kept)
                pending = [block for block in kept.content if isinstance(block, ToolCall)]
    out.extend(missing_results(pending, out[-1].timestamp if out else 0))
    return out


def missing_results(calls: list[ToolCall], timestamp: int) -> list[Turn]:
    """An error result for each call that never got one (stamped with a neighbour's time)."""
    return [ToolResultMessage(tool_call_id=call.id, tool_name=call.name, is_error=True,
                              content=(TextContent(text=NO_RESULT),), timestamp=timestamp)
            for call in calls]


def replayable(message: AssistantMessage, model: Model,
               own_thinking: bool = False) -> AssistantMessage | None:
    """An earlier reply as the target should see it, or None if nothing is left. As in Pi,
    the same model's thinking is dropped (Chat Completions cannot take it back) unless
    `own_thinking` (Anthropic wants it back, signed), another model's becomes text."""
    same = (message.provider, message.api, message.model) == (model.provider, model.api, model.id)
    blocks: list[AssistantBlock] = []
    for block in message.content:
        if block.type == "text" and not block.text:
            continue  # nothing to say, and some servers refuse empty text
        if block.type != "thinking":
            blocks.append(block)
        elif not same and not block.redacted and block.thinking.strip():
            blocks.append(TextContent(text=block.thinking))
    if not blocks:
        return None  # an assistant message with neither text nor tool calls is refused
    if same and own_thinking:
        return message
    return message.model_copy(update={"content": tuple(blocks)})


def without_images(message: WithContent, model: Model) -> WithContent:
    """Images replaced by a short text when the model cannot see them, so it knows one was there."""
    if "image" in model.input or isinstance(message.content, str):
        return message
    content: tuple[UserBlock, ...] = tuple(
        TextContent(text=IMAGE_OMITTED) if block.type == "image" else block
        for block in message.content)
    return message.model_copy(update={"content": content})
