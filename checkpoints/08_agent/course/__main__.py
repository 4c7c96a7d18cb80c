"""`python -m course …`: this checkpoint's own command line (see `course/cli.py`)."""

from course.cli import app

app()
