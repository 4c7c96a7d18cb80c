"""The truncation helpers reproduce Pi 1.6's truncate.ts exactly (expected/newest/truncation.json,
Pi 1.6 on the inputs of expected/tools.json and two more)."""

import hashlib
import json

import pytest

from pi.coding_agent.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate,
)

STEP = 7


def utf16_len(text: str) -> int:
    """JavaScript's `String.length`, as Pi's driver counted: outside the BMP counts twice."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2

# The inputs Pi's driver generated, rebuilt from each entry's `generator` description.
INPUTS = {
    "small": "hello\nworld",
    "empty": "",
    "trailingNewline": "a\nb\n",
    "lines2000": "\n".join(f"line {n}" for n in range(1, 2001)),
    "lines2001": "\n".join(f"line {n}" for n in range(1, 2002)),
    "lines3000": "\n".join(f"line {n}" for n in range(1, 3001)),
    "bytes60k_lines": "\n".join("x" * 60 for _ in range(1000)),
    "exactly51200": "a" * 51200,
    "oneLine60k": "a" * 60000,
    "multibyteTail": "é" * 30000,
    "headThenHugeLine": "short\n" + "b" * 60000,
    "lines2000TrailingNewline": "".join(f"line {n}\n" for n in range(1, 2001)),
    "lines3000TrailingNewline": "".join(f"line {n}\n" for n in range(1, 3001)),
}


def expected(data_dir, key):
    return json.loads((data_dir / "pi-reference/expected/tools.json").read_text("utf-8"))[key]


def limits(generator: str) -> dict[str, int]:
    """`custom limits maxLines=10,maxBytes=1000` -> keyword arguments; {} for the defaults."""
    if not generator.startswith("custom limits"):
        return {}
    pairs = (item.split("=") for item in generator.split()[-1].split(","))
    return {{"maxLines": "max_lines", "maxBytes": "max_bytes"}[k]: int(v) for k, v in pairs}


def summary(result) -> dict:
    """A TruncationResult in the shape the reference file stores (JS lengths in UTF-16)."""
    content = result.content
    return {
        **result.to_details(),
        "contentChars": utf16_len(content),
        "contentSha256": hashlib.sha256(content.encode("utf-8")).hexdigest(),
        "contentFirst40": content[:40],
        "contentLast40": content[-40:],
    }


def test_the_limits_are_pis() -> None:
    assert (DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES) == (2000, 51200)


def test_truncate_head_and_tail_match_pi_on_every_reference_input(data_dir) -> None:
    newest = data_dir / "pi-reference/expected/newest/truncation.json"
    cases = json.loads(newest.read_text("utf-8"))["truncation"]
    assert len(cases) == 15
    for case in cases:
        text, options = INPUTS[case["input"]], limits(case["generator"])
        if "inputChars" in case:
            assert utf16_len(text) == case["inputChars"], case["input"]
        assert summary(truncate(text, "head", **options)) == case["head"], case["input"]
        assert summary(truncate(text, "tail", **options)) == case["tail"], case["input"]


def test_format_size_matches_pi(data_dir) -> None:
    for case in expected(data_dir, "formatSize"):
        assert format_size(case["bytes"]) == case["formatted"]


@pytest.mark.parametrize(("size", "text"), [(2304, "2.3KB"), (2359296, "2.3MB"), (2406, "2.3KB")])
def test_format_size_rounds_halves_up_like_javascript(size: int, text: str) -> None:
    # 2304 bytes are exactly 2.25 KB: JavaScript's toFixed(1) says 2.3, Python's round 2.2.
    assert format_size(size) == text


def test_a_final_newline_ends_the_last_line_and_starts_no_new_one() -> None:
    result = truncate("1\n2\n3\n", "tail", max_lines=2)
    assert (result.total_lines, result.content, result.output_lines) == (3, "2\n3", 2)
    assert not truncate("1\n2\n", "head", max_lines=2).truncated
    assert truncate("", "head").total_lines == 0
