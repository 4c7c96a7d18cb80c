# mistake: forgets to clear the streaming message when a message ends
# expect: streaming_message
if isinstance(event, MessageStart | MessageUpdate) and event.message.role == "assistant":
    assert isinstance(event.message, AssistantMessage)
    return replace(state, streaming_message=event.message)
if isinstance(event, MessageEnd):
    failed = getattr(event.message, "error_message", None)
    return replace(state, messages=state.messages + (event.message,),
                     last_error=failed or state.last_error)
if isinstance(event, ToolExecutionStart):
    return replace(state, pending_tool_calls=state.pending_tool_calls | {event.tool_call_id})
if isinstance(event, ToolExecutionEnd):
    return replace(state, pending_tool_calls=state.pending_tool_calls - {event.tool_call_id})
return state
