# mistake: lets a second tool silently replace the first
# expect: DID NOT RAISE
self._tools[tool.name] = tool
