"""pi: a Pi-style coding agent, rebuilt one step at a time.

The package mirrors Pi's layers: `pi.ai` (messages, streams, providers) sits below
`pi.agent` (tools, loop, the stateful Agent), which sits below `pi.coding_agent`. A lower
layer never imports a higher one.
"""

from pi.trace import format_timeline, observe_run

__all__ = ["format_timeline", "observe_run"]
