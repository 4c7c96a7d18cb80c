# mistake: starts no turn for results that come before any reply
# expect: no_orphan_results
found: list[tuple[list[str], list[str]]] = []
for message in path:
    if message.get("role") == "assistant":
        found.append((call_ids(message), []))
    elif message.get("role") == "toolResult" and found:
        found[-1][1].append(str(message.get("toolCallId")))
return found
