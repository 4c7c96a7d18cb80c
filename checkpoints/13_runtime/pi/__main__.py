"""`python -m pi …`: the agent's own command line, the same as `pi-agent` (pi/modes/main.py)."""

from pi.modes.main import app

app(prog_name="pi-agent")
