"""OpenAI's Chat Completions API (and the servers that copy it) over httpx: the Context as a
JSON body POSTed to `{base_url}/chat/completions`, after `compat_messages` decided what the model
can take; the reply's SSE `data:` chunks, until `[DONE]`, go to `openai_wire`'s ReplyBuilder."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from pi.ai.content import ImageContent, TextContent
from pi.ai.messages import AssistantMessage, ToolResultMessage, UserMessage, Tool, json_text
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.compat import compat_messages
from pi.ai.providers.http_exchange import HttpProvider, Json, sse_objects
from pi.ai.providers.openai_wire import ReplyBuilder
from pi.ai.transcript import Turn, request_parts

API = "openai-completions"
TOOL_IMAGES = "Attached image(s) from tool result:"
IMAGE_ONLY_RESULT = "(the result is an image, attached in the next message)"


class OpenAICompletionsProvider(HttpProvider):
    """Speaks `openai-completions`: POST `/chat/completions`, read `data:` chunks as SSE."""

    path = "/chat/completions"

    def body(self, model: Model, context: Context, options: StreamOptions) -> Json:
        """The JSON body POSTed to `/chat/completions`, asking for a stream with usage at the
        end."""
        prompt, tools, turns = request_parts(context)
        body: Json = {
            "model": model.id,
            "messages": wire_messages(prompt, turns, model),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:  # no tools: the field is left out, never `[]`
            body["tools"] = [wire_tool(tool) for tool in tools]
        if options.max_tokens is not None:
            body["max_tokens"] = options.max_tokens
        if options.temperature is not None:
            body["temperature"] = options.temperature
        return body

    def headers(self, key: str | None) -> dict[str, str]:
        """The only place the API key goes: the Authorization header."""
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    async def read(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        """Feed each SSE chunk to the builder until `[DONE]` or the end of the body."""
        async for _, chunk in sse_objects(response):
            builder.feed(chunk)
        builder.finish()


def wire_messages(prompt: str | None, turns: Sequence[Turn], model: Model) -> list[Json]:
    """The system prompt, then the messages in Chat Completions form. Images from tool results
    follow the run of `tool` messages in one `user` message (a `tool` message holds text)."""
    out: list[Json] = []
    if prompt:
        out.append({"role": "system", "content": prompt})
    held: list[Json] = []
    for message in compat_messages(turns, model):
        if held and not isinstance(message, ToolResultMessage):
            out.append({"role": "user", "content": [text_part(TOOL_IMAGES), *held]})
            held = []
        if isinstance(message, UserMessage):
            out.append(wire_user(message))
        elif isinstance(message, AssistantMessage):
            out.append(wire_assistant(message))
        else:
            out.append(wire_tool_result(message))
            held += [image_part(b) for b in message.content if isinstance(b, ImageContent)]
    if held:
        out.append({"role": "user", "content": [text_part(TOOL_IMAGES), *held]})
    return out


def wire_user(message: UserMessage) -> Json:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    parts = [
        text_part(block.text) if isinstance(block, TextContent) else image_part(block)
        for block in message.content
    ]
    return {"role": "user", "content": parts}


def wire_assistant(message: AssistantMessage) -> Json:
    """{"role": "assistant", "content": the text blocks joined with newlines, or None if there
    is no text}, and "tool_calls" only when there are any: per toolCall block {"id", "type":
    "function", "function": {"name", "arguments"}}, the arguments as `json_text` writes them
    (JSON.stringify's text). Thinking blocks are left out."""
    text = "\n".join(block.text for block in message.content if block.type == "text")
    wire: Json = {"role": "assistant", "content": text or None}
    calls = [
        {"id": block.id, "type": "function", "function": {"name": block.name,
         "arguments": json_text(block.arguments)}}
        for block in message.content
        if block.type == "toolCall"
    ]
    if calls:
        wire["tool_calls"] = calls
    return wire


def wire_tool_result(message: ToolResultMessage) -> Json:
    """A `tool` message answering one call by id; its images follow separately."""
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    if not text and message.content:
        text = IMAGE_ONLY_RESULT
    return {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}


def wire_tool(tool: Tool) -> Json:
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def text_part(text: str) -> Json:
    return {"type": "text", "text": text}


def image_part(image: ImageContent) -> Json:
    """An image as OpenAI takes it: a `data:` URL with the base64 payload inline."""
    url = f"data:{image.mime_type};base64,{image.data}"
    return {"type": "image_url", "image_url": {"url": url}}
