# mistake: only keeps the listener, so one added after the abort never hears it
# expect: 'after'
self._listeners.append(listener)
