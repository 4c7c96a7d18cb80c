# mistake: dumps without the camelCase aliases
# expect: cache_read
return message.model_dump(mode="json", exclude_none=True)
