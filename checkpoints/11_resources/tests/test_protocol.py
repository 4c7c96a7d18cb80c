"""The protocol reads every message real Pi wrote, and writes it back unchanged."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from pi.ai import (
    AppMessage,
    AssistantMessage,
    ProtocolError,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    dump_message,
    parse_message,
)

STEP = 1
SESSIONS = ["large-session.jsonl", "before-compaction.jsonl", "synthetic-tree.v3.jsonl",
            "synthetic-v2-hookmessage.jsonl"]
TYPED = {"user": UserMessage, "assistant": AssistantMessage, "toolResult": ToolResultMessage}


def stored_messages(data_dir: Path, name: str) -> list[dict]:
    path = data_dir / "pi-reference" / "sessions" / name
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message"]


@pytest.mark.parametrize("name", SESSIONS)
def test_every_stored_message_round_trips_to_an_equal_json_object(data_dir, name) -> None:
    messages = stored_messages(data_dir, name)
    assert messages, "the fixture holds messages"
    for index, data in enumerate(messages):
        assert dump_message(parse_message(data, f"{name}#{index}")) == data


@pytest.mark.parametrize("name", SESSIONS)
def test_llm_roles_become_typed_messages_and_other_roles_stay_opaque(data_dir, name) -> None:
    for data in stored_messages(data_dir, name):
        message = parse_message(data)
        assert type(message) is TYPED.get(data["role"], AppMessage)


def test_the_real_sessions_hold_every_block_kind(data_dir) -> None:
    kinds = {block["type"] for name in SESSIONS for m in stored_messages(data_dir, name)
             if isinstance(m.get("content"), list) for block in m["content"]}
    assert kinds == {"text", "thinking", "toolCall", "image"}


def assistant_data(**changes) -> dict:
    data = {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}],
        "api": "mock", "provider": "mock", "model": "m",
        "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse", "timestamp": 1,
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"stopReason": "finished"}, "stopReason"),
        ({"content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": "a"}]},
         "content[0].toolCall.arguments"),
        ({"content": [{"type": "video", "url": "x"}]}, "content[0]"),
        ({"usage": {"input": "many"}}, "usage.input"),
    ],
)
def test_malformed_message_is_refused_with_one_line_naming_the_field(changes, named) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(assistant_data(**changes))
    assert str(refused.value).startswith(f"message: {named}: ")
    assert "\n" not in str(refused.value)


def test_fields_a_newer_pi_writes_are_kept_and_written_back() -> None:
    """Pi's Google provider signs tool calls; Pi 0.73 adds responseModel and diagnostics."""
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"},
            "thoughtSignature": "c2lnbmVk"}
    data = assistant_data(content=[call], responseModel="m-2026-01",
                          diagnostics=[{"type": "retry", "timestamp": 5, "details": {"n": 1}}])
    message = parse_message(data)
    assert isinstance(message, AssistantMessage) and message.response_model == "m-2026-01"
    assert isinstance(message.content[0], ToolCall)
    assert message.content[0].thought_signature == "c2lnbmVk"
    assert dump_message(message) == data


def test_unknown_fields_anywhere_in_a_message_are_kept_not_refused() -> None:
    data = assistant_data(colour="blue", future={"nested": [1, None]})
    data["usage"] = {**data["usage"], "reasoningTokens": 7}
    data["content"] = [{**data["content"][0], "newFlag": True}]
    message = parse_message(data)
    assert dump_message(message) == data
    user = {"role": "user", "content": [{"type": "text", "text": "hi", "lang": "en"}],
            "timestamp": 1, "source": "voice"}
    assert dump_message(parse_message(user)) == user


SYSTEM_LINES = [
    '{"role":"system","content":"You are terse.","toolsAdded":[{"name":"read","description":'
    '"Read a file","parameters":{"type":"object","properties":{}}}],"timestamp":0}',
    '{"role":"system","content":[{"type":"text","text":"Also: be kind."}],"sections":'
    '{"<env>":"cwd=/w","<old>":null},"toolsRemoved":[{"name":"read"}],"timestamp":7}',
]


@pytest.mark.parametrize("line", SYSTEM_LINES)
def test_a_system_message_round_trips_byte_for_byte(line) -> None:
    from pi.ai.messages import json_text

    message = parse_message(json.loads(line))
    assert isinstance(message, SystemMessage)
    assert json_text(dump_message(message)) == line


# Each number, and node's own text of it: the output of
# node -e 'console.log(JSON.stringify([1.0, -0.0, 0.1+0.2, 1e-7, ...]))' (node v20), one by one.
JS_NUMBER_TEXTS = [
    (1.0, "1"), (-0.0, "0"), (0.1 + 0.2, "0.30000000000000004"), (1e-7, "1e-7"),
    (1.5e-7, "1.5e-7"), (-1.5e-7, "-1.5e-7"), (1e-6, "0.000001"), (1e-5, "0.00001"),
    (0.000015, "0.000015"), (123456.789, "123456.789"), (1e16, "10000000000000000"),
    (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.5e21, "1.5e+21"),
    (1.7976931348623157e308, "1.7976931348623157e+308"), (5e-324, "5e-324"),
    (float(2**53 + 2), "9007199254740994"), (float("inf"), "null"), (100, "100"),
]


@pytest.mark.parametrize(("number", "node_text"), JS_NUMBER_TEXTS)
def test_numbers_are_written_as_javascript_writes_them(number, node_text) -> None:
    from pi.ai.messages import json_text

    assert json_text(number) == node_text
    assert json_text({"n": [number]}, indent=2) == '{\n  "n": [\n    ' + node_text + "\n  ]\n}"


def test_an_int_beyond_2_to_the_53_keeps_all_its_digits() -> None:
    """JS has no such ints: its JSON.parse rounds 9007199254740993 to 9007199254740992 before
    writing it. Python parsed the exact int, so the text says what a tool received."""
    from pi.ai.messages import json_text

    assert json_text([2**53 + 1, 12345678901234567890]) == "[9007199254740993,12345678901234567890]"


def test_a_system_section_set_to_null_is_a_removal_and_stays_written() -> None:
    message = parse_message(json.loads(SYSTEM_LINES[1]))
    assert isinstance(message, SystemMessage) and message.sections == {"<env>": "cwd=/w",
                                                                       "<old>": None}
    assert dump_message(message)["sections"]["<old>"] is None


def test_a_malformed_system_message_is_refused_naming_the_field() -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message({"role": "system", "content": "x", "toolsAdded": [{"name": 1}],
                       "timestamp": 0})
    assert str(refused.value).startswith("message: toolsAdded[0].name: ")


def test_the_protocol_command_reads_a_session_a_newer_pi_wrote(tmp_path) -> None:
    from typer.testing import CliRunner

    from course.cli import app

    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {},
            "thoughtSignature": "c2ln"}
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"},
             {"type": "message", "id": "a", "parentId": None, "timestamp": "t",
              "message": assistant_data(content=[call], responseModel="m-1",
                                        diagnostics=[{"type": "retry", "timestamp": 1}])},
             {"type": "future_kind", "id": "b", "parentId": "a", "timestamp": "t"}]
    path = tmp_path / "newer.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = CliRunner().invoke(app, ["protocol", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["assistant", "1"]


def test_missing_timestamp_is_refused_not_invented() -> None:
    data = assistant_data()
    del data["timestamp"]
    with pytest.raises(ProtocolError, match="timestamp"):
        parse_message(data)


def test_data_without_a_role_is_refused() -> None:
    with pytest.raises(ProtocolError, match="role"):
        parse_message(["not", "a", "message"], "line 3")


def test_python_names_are_snake_case_and_json_names_camel_case() -> None:
    message = parse_message(assistant_data())
    assert isinstance(message, AssistantMessage)
    assert message.stop_reason == "toolUse" and message.usage.total_tokens == 3
    assert isinstance(message.content[0], ToolCall)
    assert "stopReason" in dump_message(message) and "stop_reason" not in dump_message(message)


def test_messages_are_frozen() -> None:
    message = UserMessage(content="hi", timestamp=0)
    with pytest.raises(ValidationError):
        message.content = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("kind, make", [
    ("a folder", lambda path: path.mkdir()),
    ("a FIFO", lambda path: __import__("os").mkfifo(path)),
])
def test_the_protocol_command_names_a_folder_or_fifo_in_one_line_without_reading_it(
    tmp_path, kind, make,
) -> None:
    from typer.testing import CliRunner

    from course.cli import app

    path = tmp_path / "session.jsonl"
    make(path)
    result = CliRunner().invoke(app, ["protocol", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {path}: is {kind}, not a file"


def test_dumped_messages_validate_against_the_protocol_schema(data_dir) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((data_dir.parent / "protocol" / "pi-ai.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/Message", "$defs": schema["$defs"]})
    for data in stored_messages(data_dir, "synthetic-tree.v3.jsonl"):
        if data["role"] in TYPED:
            validator.validate(dump_message(parse_message(data)))


def test_a_system_message_with_sections_and_tools_validates_against_the_protocol_schema(
        data_dir) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((data_dir.parent / "protocol" / "pi-ai.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/Message", "$defs": schema["$defs"]})
    tool = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
    data = {"role": "system", "content": "", "sections": {"rules": "<rules/>", "old": None},
            "toolsAdded": [tool], "toolsRemoved": [{"name": "bash"}], "timestamp": 1}
    validator.validate(dump_message(parse_message(data)))
