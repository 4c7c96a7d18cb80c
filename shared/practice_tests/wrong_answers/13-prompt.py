# mistake: goes on prompting after a failed session write, so what it does is no longer recorded
# expect: DID NOT RAISE RuntimePoisoned
check_images(self.config.model, images)
resources = self.assembly.resources
prepared = await prepare_prompt(self.assembly.runner, text, resources.system_prompt,
                                resources.expand_input)
if prepared is None:
    return
if self._over_threshold():
    await self.compact(reason="threshold")
if prepared.system_prompt != resources.system_prompt:
    self.forced_prompt = prepared.system_prompt
try:
    self.reseed()
    await self.agent.prompt(*self.declarations(), self.user_message(prepared.text, images),
                            *prepared.extra_messages)
    await self.relay.flush()
    await self._after_run()
finally:
    self.forced_prompt = None
    self.reseed()
