# mistake: ends the stream only on done, so an error never ends it
# expect: `error` event is terminal too
if self.ended:
    raise StreamEndedError(f"event {event.type!r} pushed after the stream ended")
self.partial = event_message(event)
self._queue.put_nowait(event)
if isinstance(event, DoneEvent):
    self.ended = True
    self._final.set_result(self.partial)
