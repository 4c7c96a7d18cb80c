"""course: the plumbing around the agent in `pi/`: the command line (`cli.py`), step 00's toy
agent (`trace.py`), the eval driver of steps 06 on and step 14's harness (`evals/`). It may
import the agent; the agent never imports it.
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
