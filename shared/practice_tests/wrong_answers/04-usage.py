# mistake: counts the cached prompt tokens as input too
# expect: != 168
prompt, output = data.get("prompt_tokens") or 0, data.get("completion_tokens") or 0
cached = (data.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
zero = Usage.zero()
return zero.model_copy(update={"input": prompt, "output": output,
                               "cache_read": cached, "total_tokens": prompt + output})
