# mistake: swallows a handler's failure and returns None, which means go ahead
# expect: HandlerFailed
try:
    answer = handler(payload)
    if inspect.isawaitable(answer):
        answer = await asyncio.wait_for(answer, self.timeout)
    return answer
except Exception:
    return None
