# mistake: validates and executes in one try, so a crash inside the tool reads as bad arguments
# expect: work failed for x=-1
tool = registry.get(call.name)
if tool is None:
    return error_result(call, f"Tool {call.name} not found", clock)
try:
    params = tool.parameters.model_validate(call.arguments)
    result = await tool.execute(call.id, params, signal, on_update)
except Exception as failure:
    return error_result(call, f"Invalid arguments for tool {call.name}: {failure}", clock)
return result_message(call, result, False, clock)
