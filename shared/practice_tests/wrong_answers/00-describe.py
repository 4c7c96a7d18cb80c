# mistake: forgets the stop reason row of an assistant message
# expect: stop:
role = message["role"]
content = message["content"]
if isinstance(content, str):
    return [(role, shorten(content))]
parts: list[tuple[str, str]] = []
for block in content:
    if block["type"] == "toolCall":
        arguments = json.dumps(block["arguments"], sort_keys=True)
        parts.append((role, f"calls {block['name']} {arguments}  [{block['id']}]"))
    elif block["type"] in ("text", "thinking"):
        label = role if block["type"] == "text" else f"{role}~"
        parts.append((label, shorten(block[block["type"]])))
if role == "toolResult":
    status = "error" if message["isError"] else "ok"
    parts = [(role, f"{status} {text}  [{message['toolCallId']}]") for _, text in parts]
return parts
