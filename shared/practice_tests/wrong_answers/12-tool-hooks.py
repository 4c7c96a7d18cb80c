# mistake: always installs both hooks, even when no extension listens
# expect: is None
return ToolHooks(before_tool_call=runner.tool_call, after_tool_call=runner.tool_result)
