# mistake: always installs both hooks, even when no extension listens
# expect: is None
async def before(call: ToolCall, context: ToolCallContext) -> Decision:
    return await runner.tool_call(call)

async def after(call: ToolCall, result: ToolResultMessage) -> ToolResultMessage | None:
    return await runner.tool_result(call, result)

return ToolHooks(before_tool_call=before, after_tool_call=after)
