"""Request capture, ids, model naming, remaining turns, responder mode and complete()."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from mock_model import MockModel, ScriptError, Turn, text, tool_call, turn
from mock_model.usage import estimate_tokens, request_characters

from .helpers import collect, final, user_request


def test_captured_requests_are_deep_copies_of_what_the_caller_sent() -> None:
    model = MockModel([turn(text("ok"))])
    request = user_request("original")
    collect(model, request)
    request["messages"][0]["content"] = "changed afterwards"
    request["model"] = "other"
    assert model.requests == [user_request("original")]


def test_message_model_comes_from_the_request_with_a_fallback() -> None:
    assert final(collect(MockModel([turn()]), user_request(model="tiny-7")))["model"] == "tiny-7"
    no_model: dict[str, Any] = {"messages": []}
    assert final(collect(MockModel([turn()]), no_model))["model"] == "mock-1"


def test_api_and_provider_are_configurable() -> None:
    message = final(collect(MockModel([turn()], api="fake-api", provider="acme")))
    assert (message["api"], message["provider"]) == ("fake-api", "acme")


def test_tool_call_ids_are_given_ids_or_request_number_and_part_index() -> None:
    script = [
        turn(text("a"), tool_call("read", {})),
        turn(tool_call("ls", {}), tool_call("cat", {}, id="mine")),
    ]
    model = MockModel(script)
    first, second = final(collect(model)), final(collect(model))
    assert first["content"][1]["id"] == "call_1_1"
    assert [block["id"] for block in second["content"]] == ["call_2_0", "mine"]


@pytest.mark.parametrize(
    ("script_turn", "stop_reason"),
    [
        (turn(text("hi")), "stop"),
        (turn(text("hi"), tool_call("read", {})), "toolUse"),
        (turn(text("hi"), stop_reason="length"), "length"),
        (turn(tool_call("read", {}), stop_reason="length"), "length"),
    ],
)
def test_stop_reason_follows_tool_calls_unless_overridden(
    script_turn: Turn, stop_reason: str
) -> None:
    events = collect(MockModel([script_turn]))
    assert events[-1]["reason"] == final(events)["stopReason"] == stop_reason


def test_remaining_counts_down_per_captured_request() -> None:
    model = MockModel([turn(), turn()])
    assert model.remaining == 2
    collect(model)
    assert model.remaining == 1


def test_responder_receives_each_request_and_its_number() -> None:
    seen: list[tuple[str, int]] = []

    def respond(request: dict[str, Any], number: int) -> Turn:
        seen.append((request["messages"][0]["content"], number))
        return turn(text(f"answer {number}"))

    model = MockModel(responder=respond)
    collect(model, user_request("a"))
    message = final(collect(model, user_request("b")))
    assert seen == [("a", 1), ("b", 2)]
    assert message["content"] == [{"type": "text", "text": "answer 2"}]
    assert model.remaining is None


def test_responder_mutating_its_request_does_not_change_the_capture() -> None:
    def vandal(request: dict[str, Any], number: int) -> Turn:
        request["messages"].clear()
        return turn()

    model = MockModel(responder=vandal)
    collect(model)
    assert model.requests == [user_request()]


def test_model_needs_exactly_one_of_script_and_responder() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        MockModel()
    with pytest.raises(ValueError, match="exactly one"):
        MockModel([turn()], responder=lambda request, number: turn())


def test_script_items_must_be_turns() -> None:
    with pytest.raises(ScriptError, match=r"turns\[1\]: expected a Turn"):
        MockModel([turn(), "hi"])  # type: ignore[list-item]


def test_complete_returns_the_final_message() -> None:
    model = MockModel([turn(text("Hi!"))])
    message = asyncio.run(model.complete(user_request()))
    assert message["content"] == [{"type": "text", "text": "Hi!"}]
    assert message["stopReason"] == "stop"
    assert "errorMessage" not in message


def test_error_message_field_appears_only_on_failed_messages() -> None:
    model = MockModel([turn(text("fine"))])
    assert "errorMessage" not in final(collect(model))
    assert "errorMessage" in final(collect(model))


def conversation_requests(turns: int) -> list[dict[str, Any]]:
    """What an agent sends: each request repeats the messages of the last one and adds one."""
    messages: list[dict[str, Any]] = []
    requests = []
    for number in range(turns):
        messages = [*messages, {"role": "user", "content": f"message {number}", "timestamp": 1}]
        requests.append({"model": "mock-1", "systemPrompt": "Be brief.", "messages": messages})
    return requests


def test_a_growing_conversation_is_recorded_request_by_request_as_sent() -> None:
    sent = conversation_requests(30)
    model = MockModel(responder=lambda request, number: turn(text("ok")))
    for request in sent:
        collect(model, request)
    assert model.requests == copy.deepcopy(sent)
    assert [len(r["messages"]) for r in model.requests] == list(range(1, 31))


def test_each_message_of_a_growing_conversation_is_stored_once() -> None:
    model = MockModel(responder=lambda request, number: turn(text("ok")))
    for request in conversation_requests(50):
        collect(model, request)
    assert model.requests.stored_messages == 50, "a copy per message, not per request"


def test_equal_messages_in_new_objects_are_shared_and_an_edit_is_recorded() -> None:
    model = MockModel(responder=lambda request, number: turn(text("ok")))
    collect(model, user_request("first"))
    collect(model, user_request("first"))  # equal content, new objects: stored once
    assert model.requests.stored_messages == 1
    edited = user_request("first")
    edited["messages"][0]["content"] = "edited"
    collect(model, edited)
    assert [r["messages"][0]["content"] for r in model.requests] == ["first", "first", "edited"]


def test_a_request_read_from_the_log_can_be_changed_without_changing_the_log() -> None:
    model = MockModel([turn(text("ok"))])
    collect(model, user_request("original"))
    model.requests[0]["messages"][0]["content"] = "vandalised"
    model.requests[0]["model"] = "other"
    assert model.requests[0] == user_request("original")


def test_input_tokens_are_the_request_size_however_it_is_stored() -> None:
    sent = [*conversation_requests(5), user_request("a different conversation")]
    sent.append({"model": "mock-1"})  # no messages at all
    model = MockModel(responder=lambda request, number: turn(text("ok")))
    usages = [final(collect(model, request))["usage"]["input"] for request in sent]
    assert usages == [estimate_tokens(request_characters(request)) for request in sent]


def test_one_list_growing_between_requests_is_recorded_request_by_request() -> None:
    messages: list[dict[str, Any]] = []
    model = MockModel(responder=lambda request, number: turn(text("ok")))
    for number in range(3):
        messages.append({"role": "user", "content": f"m{number}", "timestamp": 1})
        collect(model, {"model": "mock-1", "messages": messages})
    assert [[m["content"] for m in r["messages"]] for r in model.requests] == [
        ["m0"], ["m0", "m1"], ["m0", "m1", "m2"]]
    assert model.requests.stored_messages == 3
