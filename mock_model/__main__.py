"""Entry point for `python -m mock_model`; the commands themselves live in cli.py."""

from .cli import app

app(prog_name="mock_model")
