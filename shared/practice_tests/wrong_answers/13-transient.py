# mistake: matches status codes inside longer numbers (5000 tokens reads as a 500)
# expect: 5000
if message.stop_reason != "error" or not message.error_message:
    return False
if is_context_overflow(message, context_window):
    return False
return any(code in message.error_message for code in ("429", "500", "502", "503", "504"))
