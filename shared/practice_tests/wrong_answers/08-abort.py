# mistake: drops the queued messages instead of handing them back
# expect: also now
if self._controller is not None:
    self._controller.abort("aborted by the user")
self.steering.drain()
self.follow_ups.drain()
return []
