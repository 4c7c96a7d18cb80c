"""Every event the MockModel can produce matches the documented protocol schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mock_model import MockModel, text, turn
from mock_model.validate import schema_errors

from .helpers import collect, user_request
from .scenarios import scenario_runs

RUNS = scenario_runs()
REFERENCE_SESSIONS = Path(__file__).resolve().parents[2] / "shared/data/pi-reference/sessions"
CANONICAL_ROLES = ("user", "assistant", "toolResult")


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_event_validates_against_assistant_message_event(name: str) -> None:
    for index, event in enumerate(RUNS[name]):
        assert schema_errors(event) == [], f"{name} event {index} ({event['type']})"


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_terminal_message_validates_as_a_message(name: str) -> None:
    last = RUNS[name][-1]
    message = last["message"] if last["type"] == "done" else last["error"]
    assert schema_errors(message, "Message") == []


def test_default_request_is_a_valid_request_and_context_minus_model() -> None:
    request = user_request()
    assert schema_errors(request, "Request") == []
    context = {key: value for key, value in request.items() if key != "model"}
    assert schema_errors(context, "Context") == []


def test_schema_rejects_unknown_fields_on_closed_shapes() -> None:
    event = collect(MockModel([turn(text("hi"))]))[-1]
    event["message"]["surprise"] = True
    assert schema_errors(event) != []


def test_schema_accepts_pi_extras_partial_json_and_text_signature() -> None:
    block = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}, "partialJson": "{"}
    assert schema_errors(block, "ToolCall") == []
    signed = {"type": "text", "text": "hi", "textSignature": "abc"}
    assert schema_errors(signed, "TextContent") == []


def test_usage_without_total_tokens_is_accepted_for_older_pi_files() -> None:
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    usage = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cost": cost}
    assert schema_errors(usage, "Usage") == []


@pytest.mark.skipif(not REFERENCE_SESSIONS.is_dir(), reason="Pi reference data not present")
def test_messages_in_real_pi_session_files_validate_as_messages() -> None:
    checked = 0
    for session_file in sorted(REFERENCE_SESSIONS.glob("*.jsonl")):
        for line in session_file.read_text(encoding="utf-8").splitlines():
            message = json.loads(line).get("message")
            if message is None or message.get("role") not in CANONICAL_ROLES:
                continue
            assert schema_errors(message, "Message") == [], f"{session_file.name}: {line[:120]}"
            checked += 1
    assert checked > 0
