# mistake: every handler is shown the model's arguments, so changes do not chain
# expect: ls -q -q
arguments, changed = dict(call.arguments), False
for ext, handler in self.handlers("tool_call"):
    event = ToolCallEvent(call.id, call.name, read_only(call.arguments))
    answer = await self.call(ext, "tool_call handler", handler, event)
    if isinstance(answer, BlockDecision):
        return answer
    if isinstance(answer, ArgumentChange):
        arguments, changed = dict(answer.arguments), True
    elif answer is not None:
        self.failed(ext, "tool_call handler", f"returned {answer!r}, not a decision")
return ArgumentChange(arguments) if changed else None
