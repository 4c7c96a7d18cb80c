"""Decode a saved SSE stream (`curl -N … > reply.sse`) through the real OpenAI provider, with
an httpx.MockTransport for the network: the same code path, offline, no key."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from pi.ai.messages import AssistantMessage, escape_lone_surrogates, json_text
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.openai_completions import API, OpenAICompletionsProvider

RECORDING = Model(id="recorded", api=API, provider="openai", base_url="https://recorded.invalid/v1")


async def decode_sse_bytes(data: bytes, piece_size: int = 0) -> AssistantMessage:
    """The message the provider makes of `data`, sent in pieces of `piece_size` bytes (0 = all
    at once): where the network cuts makes no difference."""

    async def pieces() -> AsyncIterator[bytes]:
        step = piece_size or max(len(data), 1)
        for start in range(0, len(data), step):
            yield data[start : start + step]

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=pieces())

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        stream = OpenAICompletionsProvider(client).stream(RECORDING, Context(), StreamOptions())
        return await stream.result()


def summary_lines(message: AssistantMessage) -> list[str]:
    """A short human view of a reply: why it stopped, what it said and called, what it cost."""
    lines = [f"stop reason  {message.stop_reason}"]
    if message.error_message:
        lines.append(f"error        {message.error_message}")
    if message.response_id:
        lines.append(f"response id  {message.response_id}")
    for block in message.content:
        if block.type == "toolCall":
            arguments = json_text(block.arguments, sort_keys=True)
            lines.append(f"tool call    {block.name} {arguments}  (id {block.id})")
        else:
            text = block.text if block.type == "text" else block.thinking
            lines.append(f"{block.type:<12} {json_text(text)}")
    usage = message.usage
    lines.append(f"usage        input {usage.input}, cache read {usage.cache_read}, "
                 f"output {usage.output}, total {usage.total_tokens}")
    return [escape_lone_surrogates(line) for line in lines]  # an error may quote half a char
