"""Pi's output limits, so no tool result floods the context window: at most 2,000 lines or
50 KB of UTF-8, whole lines only, counted as Pi 1.6 counts them (`lines_of`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pydantic.alias_generators import to_camel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024


@dataclass(frozen=True)
class TruncationResult:
    """The kept text and the facts a tool needs to write an honest notice."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_details(self) -> dict[str, Any]:
        """Pi's `TruncationResult` JSON without the content, as tools put it in `details`."""
        return {to_camel(key): value for key, value in asdict(self).items() if key != "content"}


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def lines_of(text: str) -> list[str]:
    """The lines Pi 1.6 counts: a final newline ends the last line and starts no new one."""
    return text.removesuffix("\n").split("\n") if text else []


def truncate(text: str, keep: Literal["head", "tail"], max_lines: int = DEFAULT_MAX_LINES,
             max_bytes: int = DEFAULT_MAX_BYTES) -> TruncationResult:
    """Keep whole lines from the start (`head`, a file) or the end (`tail`, a command's output).
    A first line over the limit gives empty content at the head; a last line over the limit
    keeps its final bytes at the tail."""
    from_end = keep == "tail"
    lines = lines_of(text)

    def result(kept: str, by: Literal["lines", "bytes"] | None, count: int,
               partial: bool = False, too_long: bool = False) -> TruncationResult:
        return TruncationResult(kept, by is not None, by, len(lines), utf8_len(text), count,
                                utf8_len(kept), partial, too_long, max_lines, max_bytes)

    if len(lines) <= max_lines and utf8_len(text) <= max_bytes:
        return result(text, None, len(lines))
    if not from_end and utf8_len(lines[0]) > max_bytes:
        return result("", "bytes", 0, too_long=True)
    kept: list[str] = []
    used = 0
    for line in reversed(lines[-max_lines:]) if from_end else lines[:max_lines]:
        size = utf8_len(line) + (1 if kept else 0)  # the newline that joins it to the others
        if used + size > max_bytes:
            if from_end and not kept:  # the very last line alone is too big: keep its end
                data = line.encode("utf-8")
                start = len(data) - max_bytes
                while start < len(data) and data[start] & 0xC0 == 0x80:  # mid-character
                    start += 1
                return result(data[start:].decode("utf-8"), "bytes", 1, partial=True)
            break
        kept.append(line)
        used += size
    by: Literal["lines", "bytes"] = "lines" if len(kept) == max_lines else "bytes"
    return result("\n".join(reversed(kept) if from_end else kept), by, len(kept))


def format_size(size: int) -> str:
    """`512B`, `50.0KB`, `1.5MB`, rounding halves up like JavaScript's `toFixed(1)`."""
    if size < 1024:
        return f"{size}B"
    unit, divisor = ("KB", 1024) if size < 1024 * 1024 else ("MB", 1024 * 1024)
    exact = Decimal(size) / Decimal(divisor)  # exact: the divisor is a power of two
    return f"{exact.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}{unit}"
