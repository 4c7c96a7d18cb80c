# mistake: sends an empty string instead of null when the reply was only tool calls
# expect: null on this wire
text = "\n".join(block.text for block in message.content if block.type == "text")
wire: Json = {"role": "assistant", "content": text}
calls = [
    {"id": block.id, "type": "function", "function": {"name": block.name,
     "arguments": json_text(block.arguments)}}
    for block in message.content
    if block.type == "toolCall"
]
if calls:
    wire["tool_calls"] = calls
return wire
