# mistake: adds the search rule whenever bash is enabled, even beside a tool that searches
# expect: bash is told to search although
enabled = frozenset(tool_names)
rules = [SEARCH_WITH_BASH] if "bash" in enabled else []
rules += [text for name in tool_names if name in prompts for text in prompts[name].guidelines]
return list(dict.fromkeys(text.strip() for text in [*rules, *GENERAL_GUIDELINES] if text.strip()))
