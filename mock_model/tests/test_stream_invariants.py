"""Invariants that hold for every stream, checked over the whole scenario catalogue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mock_model import MockModel, SplitPolicy

from .helpers import collect, collect_with_receipts, user_request
from .scenarios import RICH_TURN, SCRIPTS, SPLITS, scenario_runs

RUNS = scenario_runs()
TERMINAL_TYPES = ("done", "error")


@pytest.mark.parametrize("name", sorted(RUNS))
def test_exactly_one_terminal_event_and_it_is_last(name: str) -> None:
    kinds = [event["type"] for event in RUNS[name]]
    assert sum(kind in TERMINAL_TYPES for kind in kinds) == 1
    assert kinds[-1] in TERMINAL_TYPES


@pytest.mark.parametrize("name", sorted(RUNS))
def test_start_comes_first_whenever_it_appears(name: str) -> None:
    kinds = [event["type"] for event in RUNS[name]]
    assert "start" not in kinds[1:]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_deltas_concatenate_to_the_end_content(name: str) -> None:
    for kind in ("text", "thinking"):
        for index, end in _ends(RUNS[name], f"{kind}_end").items():
            pieces = _deltas(RUNS[name], f"{kind}_delta", index)
            assert "".join(pieces) == end["content"]
            assert end["partial"]["content"][index][kind] == end["content"]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_tool_call_deltas_concatenate_to_the_json_of_the_final_arguments(name: str) -> None:
    for index, end in _ends(RUNS[name], "toolcall_end").items():
        argument_text = "".join(_deltas(RUNS[name], "toolcall_delta", index))
        if name.startswith("fail_malformed_arguments"):
            assert end["toolCall"]["arguments"] == {}
        else:
            assert json.loads(argument_text) == end["toolCall"]["arguments"]


@pytest.mark.parametrize("script_name", sorted(SCRIPTS))
def test_partial_of_each_event_is_unchanged_by_later_events(script_name: str) -> None:
    events, json_at_receipt = collect_with_receipts(MockModel([SCRIPTS[script_name]]))
    assert [json.dumps(event, sort_keys=True) for event in events] == json_at_receipt


@pytest.mark.parametrize("name", sorted(RUNS))
def test_no_two_events_share_a_mutable_object(name: str) -> None:
    seen: set[int] = set()
    for event in RUNS[name]:
        containers = _container_ids(event)
        assert not containers & seen
        seen |= containers


def test_each_partial_shows_the_message_as_it_was_at_that_event() -> None:
    events = collect(MockModel([RICH_TURN], split=SplitPolicy(sizes=(1,))))
    text_lengths = [
        len(event["partial"]["content"][1]["text"])
        for event in events
        if event["type"] == "text_delta"
    ]
    assert text_lengths == list(range(1, len(text_lengths) + 1))


def test_streaming_tool_call_has_empty_arguments_until_its_end_event() -> None:
    events = collect(MockModel([RICH_TURN]))
    for event in events:
        if event["type"] in ("toolcall_start", "toolcall_delta"):
            assert event["partial"]["content"][event["contentIndex"]]["arguments"] == {}
    ends = [event for event in events if event["type"] == "toolcall_end"]
    assert ends[0]["partial"]["content"][2]["arguments"] == {"path": "a.txt", "limit": 20}


@pytest.mark.parametrize("split_name", sorted(SPLITS))
@pytest.mark.parametrize("script_name", sorted(SCRIPTS))
def test_two_runs_of_the_same_script_give_identical_json_bytes(
    script_name: str, split_name: str
) -> None:
    def run() -> bytes:
        events = collect(MockModel([SCRIPTS[script_name]], split=SPLITS[split_name]))
        return "\n".join(json.dumps(e, sort_keys=True) for e in events).encode()

    assert run() == run()


def test_content_index_points_at_the_block_being_streamed() -> None:
    for event in collect(MockModel([RICH_TURN])):
        if "contentIndex" in event:
            assert event["contentIndex"] == len(event["partial"]["content"]) - 1


def test_default_request_helper_is_not_mutated_by_streaming() -> None:
    request = user_request()
    snapshot = json.dumps(request, sort_keys=True)
    collect(MockModel([RICH_TURN]), request)
    assert json.dumps(request, sort_keys=True) == snapshot


def _container_ids(value: Any) -> set[int]:
    if isinstance(value, dict):
        return {id(value)}.union(*(_container_ids(item) for item in value.values()))
    if isinstance(value, list):
        return {id(value)}.union(*(_container_ids(item) for item in value))
    return set()


def _ends(events: list[dict[str, Any]], end_type: str) -> dict[int, dict[str, Any]]:
    return {event["contentIndex"]: event for event in events if event["type"] == end_type}


def _deltas(events: list[dict[str, Any]], delta_type: str, index: int) -> list[str]:
    return [
        event["delta"]
        for event in events
        if event["type"] == delta_type and event["contentIndex"] == index
    ]
