"""`read`, a file's lines within a budget, and a notice that says how to go on. Images are
recognised by their first bytes and sent as an image block, unresized (Pi resizes them)."""

from __future__ import annotations

import base64

from pydantic import Field

from pi.agent import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal, ImageContent, TextContent
from pi.coding_agent.tools.truncate import (DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size,
                                            truncate, utf8_len)
from pi.coding_agent.tools.workspace import ToolParams, Workspace, read_named

MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
         (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"))


class ReadParams(ToolParams):
    path: str = Field(description="Path of the file to read, relative to the workspace")
    offset: int | None = Field(None, ge=1, description="First line to read (1-based)")
    limit: int | None = Field(None, ge=1, description="Maximum number of lines to read")


def image_type(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP file from its first bytes, else None."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in MAGIC if head.startswith(magic)), None)


class ReadTool(AgentTool[ReadParams]):
    name = "read"
    description = ("Read a file in the workspace. Text comes back as at most "
                   f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024} KB, whole lines "
                   "only; a notice at the end gives the offset to continue from. Use offset "
                   "(1-based) and limit for large files. PNG, JPEG, GIF and WebP images come "
                   "back as images.")
    parameters = ReadParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(self, call_id: str, params: ReadParams, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        if signal.aborted:
            raise RuntimeError("Operation aborted")
        path = self.workspace.resolve(params.path)
        shown = params.path.removeprefix("@")
        data = read_named(path, shown)
        mime = image_type(data[:16])
        if mime is None:
            return read_text(data.decode("utf-8", errors="replace"), shown, params)
        image = ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
        return ToolResult((TextContent(text=f"Read image file [{mime}]"), image))


def read_text(text: str, shown: str, params: ReadParams) -> ToolResult:
    """Pick the requested lines, truncate them, and add the notice Pi would add (the cap's
    when the cap cut the window, even if `limit` did too); the file is named as `shown`."""
    # [exercise 07-read-window]
    lines = text.split("\n")
    start = (params.offset or 1) - 1
    if start >= len(lines):
        raise ValueError(f"Offset {params.offset} is beyond end of file ({len(lines)} lines total)")
    end = len(lines) if params.limit is None else min(start + params.limit, len(lines))
    result = truncate("\n".join(lines[start:end]), keep="head")
    limit = format_size(DEFAULT_MAX_BYTES)
    if result.first_line_exceeds_limit:
        size = format_size(utf8_len(lines[start]))
        hint = f"sed -n '{start + 1}p' {shown} | head -c {DEFAULT_MAX_BYTES}"
        text = f"[Line {start + 1} is {size}, exceeds {limit} limit. Use bash: {hint}]"
        return ToolResult.text(text, {"truncation": result.to_details()})
    if result.truncated:
        last = start + result.output_lines
        why = "" if result.truncated_by == "lines" else f" ({limit} limit)"
        notice = f"Showing lines {start + 1}-{last} of {len(lines)}{why}. Use offset={last + 1}"
        return ToolResult.text(f"{result.content}\n\n[{notice} to continue.]",
                               {"truncation": result.to_details()})
    if end < len(lines):
        more = f"[{len(lines) - end} more lines in file. Use offset={end + 1} to continue.]"
        return ToolResult.text(f"{result.content}\n\n{more}")
    return ToolResult.text(result.content)
    # [end]
