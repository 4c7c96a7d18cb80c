"""course: the plumbing around the agent in `pi/`, never part of it.

Each checkpoint's command line (`python -m course COMMAND`, see `course/cli.py`) and the
subcommands each step adds, step 00's toy agent on plain dicts (`course/trace.py`), the eval
driver every checkpoint from 06 on speaks (`course/eval_driver.py`, `course/eval_case.py`), and
step 14's eval harness (`course/evals/`). This package may import the agent; the agent never
imports it.
"""

import typer
from rich.console import Console
from rich.text import Text

from course.trace import format_timeline, observe_run

__all__ = ["format_timeline", "observe_run"]


def fail(text: str) -> typer.Exit:
    """Print one red line and give the exit to raise: code 2 means "bad input"."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        Text.assemble(("error:", "red"), f" {text}"))  # the text is never read as markup
    return typer.Exit(2)
