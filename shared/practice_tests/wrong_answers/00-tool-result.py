# mistake: lets an unknown tool's error escape instead of answering the call
# expect: KeyError
tool = tools[call["name"]]
text = tool(call["arguments"])
return {
    "role": "toolResult",
    "toolCallId": call["id"],
    "toolName": call["name"],
    "content": [{"type": "text", "text": text}],
    "isError": False,
    "timestamp": 0,
}
