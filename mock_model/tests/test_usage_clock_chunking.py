"""Derived usage, the fake clock and the split policy are deterministic and exact."""

from __future__ import annotations

import json
import math

import pytest

from mock_model import (
    FakeClock,
    MockModel,
    SplitPolicy,
    derive_usage,
    fail,
    text,
    thinking,
    tool_call,
    turn,
)

from .helpers import collect, final, user_request


def test_derived_usage_matches_the_documented_formula() -> None:
    request = user_request("Größe? ✓")
    script_turn = turn(thinking("abc"), text("hello"), tool_call("read", {"path": "ü.txt"}))
    message = final(collect(MockModel([script_turn]), request))
    request_chars = len(json.dumps(request, sort_keys=True, ensure_ascii=False))
    output_chars = len("abc") + len("hello") + len("read") + len('{"path":"ü.txt"}')
    usage = message["usage"]
    assert usage["input"] == math.ceil(request_chars / 4)
    assert usage["output"] == math.ceil(output_chars / 4)
    assert (usage["cacheRead"], usage["cacheWrite"]) == (0, 0)
    assert usage["totalTokens"] == usage["input"] + usage["output"]
    assert set(usage["cost"].values()) == {0.0}


def test_derive_usage_is_a_pure_function_of_request_and_content() -> None:
    content = [{"type": "text", "text": "x" * 9}]
    assert derive_usage(user_request(), content) == derive_usage(user_request(), content)
    assert derive_usage(user_request(), content)["output"] == 3


def test_usage_override_replaces_given_fields_and_recomputes_totals() -> None:
    override = {"input": 100, "cacheRead": 20, "cost": {"input": 0.5}}
    usage = final(collect(MockModel([turn(text("abcd"), usage=override)])))["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"]) == (100, 1, 20)
    assert usage["totalTokens"] == 121
    assert usage["cost"]["total"] == 0.5


def test_partial_messages_carry_zero_usage_until_the_terminal_event() -> None:
    events = collect(MockModel([turn(text("hello"))]))
    assert all(event["partial"]["usage"]["totalTokens"] == 0 for event in events[:-1])
    assert final(events)["usage"]["totalTokens"] > 0


def test_delay_advances_the_fake_clock_by_exactly_the_delay() -> None:
    clock = FakeClock(start_ms=5_000)
    model = MockModel(
        [turn(text("late"), delay_ms=1_234), fail("overloaded", delay_ms=66)], clock=clock
    )
    collect(model)
    assert clock.now_ms() == 6_234
    collect(model)
    assert clock.now_ms() == 6_300


def test_message_timestamp_comes_from_the_clock_when_the_request_arrives() -> None:
    clock = FakeClock(start_ms=42)
    assert final(collect(MockModel([turn(delay_ms=10)], clock=clock)))["timestamp"] == 42
    assert FakeClock().now_ms() == 1_767_225_600_000


def test_clock_refuses_to_go_backwards() -> None:
    with pytest.raises(ValueError):
        FakeClock().advance(-1)


@pytest.mark.parametrize("sizes", [(3, 5, 2, 7), (1,), (4, 1, 9), (1000,)])
@pytest.mark.parametrize("content", ["", "a", "héllo wörld ✓", '{"path":"a.txt","n":[1,2]}'])
def test_split_pieces_concatenate_to_the_original_text(
    sizes: tuple[int, ...], content: str
) -> None:
    pieces = SplitPolicy(sizes=sizes).split(content)
    assert "".join(pieces) == content
    assert all(pieces)


def test_default_split_cuts_mid_word_and_mid_json() -> None:
    assert SplitPolicy().split("Reading the file") == ["Rea", "ding ", "th", "e file"]
    assert SplitPolicy().split('{"path":"a.txt"}') == ['{"p', 'ath":', '"a', '.txt"}']


def test_single_character_split_gives_one_delta_per_character() -> None:
    assert SplitPolicy(sizes=(1,)).split("abc") == ["a", "b", "c"]


@pytest.mark.parametrize("sizes", [(), (0,), (2, -1)])
def test_split_policy_rejects_empty_or_non_positive_sizes(sizes: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        SplitPolicy(sizes=sizes)
