# mistake: calls the listeners again on every abort
# expect: 'before', 'before'
self.signal.aborted = True
self.signal.reason = reason
for listener in self.signal._listeners:
    listener()
