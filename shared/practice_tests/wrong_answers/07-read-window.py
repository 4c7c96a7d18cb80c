# mistake: never tells the model that more lines follow
# expect: offset=10 limit=5
lines = text.split("\n")
start = (params.offset or 1) - 1
if start >= len(lines):
    raise ValueError(f"Offset {params.offset} is beyond end of file ({len(lines)} lines total)")
end = len(lines) if params.limit is None else min(start + params.limit, len(lines))
result = truncate("\n".join(lines[start:end]), keep="head")
if result.truncated:
    last = start + result.output_lines
    notice = f"Showing lines {start + 1}-{last} of {len(lines)}. Use offset={last + 1}"
    return ToolResult.text(f"{result.content}\n\n[{notice} to continue.]",
                           {"truncation": result.to_details()})
return ToolResult.text(result.content)
