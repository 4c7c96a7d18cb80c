# mistake: hands over the newest queued message instead of the oldest
# expect: FIFO
if not self:
    return []
if self.mode == "all":
    return self.drain()
return [self.pop()]
