# mistake: records each result as it finishes, so the order depends on timing
# expect: 'c1', 'c2', 'c3'
for group in batches(calls, self.registry):
    for call in group:
        self.started(call)
    running = {asyncio.ensure_future(self.execute(call)): call for call in group}
    for task in asyncio.as_completed(list(running)):
        done = await task
        call = next(c for t, c in running.items() if t.done() and t.result() is done)
        results.append(self.finished(call, done, record))
