"""pi: a Pi-style coding agent, rebuilt one step at a time.

The package mirrors Pi's layers: `pi.ai` (messages, streams, providers) sits below
`pi.agent` (tools, loop, the stateful Agent), which sits below `pi.coding_agent`, which sits
below `pi.modes` (the ways to run it, and `pi.modes.main`, the `pi-agent` command). A lower
layer never imports a higher one, and no layer imports the course plumbing in `course/`."""
