"""Tool-call arguments while they stream: a best-effort preview (close what is open, else cut
back to the last complete member, else `{}`) and the strict parse once the call is complete."""

from __future__ import annotations

from typing import Any

from pi.ai.bounded import TooLarge, read_json
from pi.ai.redact import clip

CLOSERS = {"{": "}", "[": "]"}


def parse_partial_json(text: str) -> dict[str, Any]:
    """The arguments readable from the JSON text so far; `{}` when nothing is readable."""
    for candidate in completions(text):
        try:
            value = read_json(candidate)
        except ValueError:
            continue
        return value if isinstance(value, dict) else {}
    return {}


def strict_arguments(text: str) -> tuple[dict[str, Any], str]:
    """The complete arguments and "", or `{}` and what is wrong: never made-up arguments."""
    try:
        value = read_json(text or "{}")
    except TooLarge as error:
        return {}, f"the arguments are {error}"
    except ValueError as error:
        return {}, f"the arguments are not valid JSON ({error}): {clip(text, 200)}"
    if not isinstance(value, dict):
        return {}, f"the arguments are not a JSON object: {clip(text, 200)}"
    return value, ""


def completions(text: str) -> list[str]:
    """Ways to finish `text` as JSON: as it stands, then cut back to the last comma."""
    stack: list[str] = []
    in_string = escaped = False
    last_comma: tuple[int, str] | None = None
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in CLOSERS:
            stack.append(CLOSERS[char])
        elif char in "}]" and stack:
            stack.pop()
        elif char == ",":
            last_comma = (position, "".join(reversed(stack)))
    tail = text[:-1] if escaped else text  # a lone backslash would escape our closing quote
    closing = ('"' if in_string else "") + "".join(reversed(stack))
    candidates = [tail + closing]
    if last_comma is not None:
        candidates.append(text[: last_comma[0]] + last_comma[1])
    return candidates
