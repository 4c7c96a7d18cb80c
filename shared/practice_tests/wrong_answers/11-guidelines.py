# mistake: lists guidelines in the order the tools were enabled, repeats and all
# expect: == [0, 5, 6]
enabled = frozenset(tool_names)
texts = [g.text for name in tool_names if name in prompts
         for g in prompts[name].guidelines if g.applies(enabled)]
return [*texts, *GENERAL_GUIDELINES]
