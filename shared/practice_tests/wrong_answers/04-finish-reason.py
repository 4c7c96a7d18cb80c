# mistake: guesses stop when the stream ended without a finish reason
# expect: 'done'
reason = FINISH_REASONS.get(finish_reason or "stop")
if reason is None:
    return error_event(message, f"unknown finish reason {finish_reason!r}", "error")
return DoneEvent(reason=reason, message=message.model_copy(update={"stop_reason": reason}))
