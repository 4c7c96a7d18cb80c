# mistake: goes on prompting after a failed session write, so what it does is no longer recorded
# expect: DID NOT RAISE RuntimePoisoned
self.check_images(images)
prepared = await prepare_prompt(self.assembly.runner, text,
                                self.assembly.loop.system_prompt,
                                self.assembly.resources.expand_input)
if prepared is None:
    return
self.agent.config = replace(self.agent.config, system_prompt=prepared.system_prompt)
for message in prepared.extra_messages:
    self.agent.steer(message)
if self.auto_compaction and self._over_threshold():
    await self._compact("threshold")
await self.agent.prompt(self.user_message(prepared.text, images))
await self.relay.flush()
await self._after_run()
