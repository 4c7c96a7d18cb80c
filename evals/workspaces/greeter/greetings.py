"""Greetings used by app.py."""


def hello(name: str) -> str:
    """A friendly greeting for `name`."""
    return f"Hello, {name}!"
