# mistake: compacts at the threshold itself, not only above it
# expect: 900
return settings.enabled and context_tokens >= compaction_threshold(context_window, settings)
