"""`python -m pi …`: this checkpoint's own command line (see `pi/cli.py`)."""

from pi.cli import app

app()
