"""Cut text into stream deltas at deliberately awkward places.

Real providers split output wherever their tokenizer and network buffers happen to, often in
the middle of a word or of a JSON string. A consumer that only works when deltas end at word
boundaries is broken, so the MockModel's default policy splits mid-word and mid-JSON on
purpose, yet always in the same places so every run is reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import cycle


@dataclass(frozen=True)
class SplitPolicy:
    """Piece sizes (in characters) used in turn, restarting for every content block."""

    sizes: tuple[int, ...] = (3, 5, 2, 7)

    def __post_init__(self) -> None:
        if not self.sizes:
            raise ValueError("SplitPolicy needs at least one piece size")
        if any(isinstance(size, bool) or size < 1 for size in self.sizes):
            raise ValueError(f"SplitPolicy sizes must be positive integers, got {self.sizes}")

    def split(self, text: str) -> list[str]:
        """Return the pieces of `text`; joining them gives `text` back (no pieces for '')."""
        pieces: list[str] = []
        sizes = cycle(self.sizes)
        position = 0
        while position < len(text):
            size = next(sizes)
            pieces.append(text[position : position + size])
            position += size
        return pieces


DEFAULT_SPLIT = SplitPolicy()
SINGLE_CHARACTERS = SplitPolicy(sizes=(1,))
WHOLE_BLOCKS = SplitPolicy(sizes=(1_000_000_000,))
