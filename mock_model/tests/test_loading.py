"""Scripts load from JSON/YAML data and bad data fails early with a precise message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mock_model import (
    Failure,
    ScriptError,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Turn,
    load_script,
    script_from_data,
)

FULL_SCRIPT: dict[str, Any] = {
    "turns": [
        {"text": "hi"},
        {
            "parts": [
                {"thinking": "…", "signature": "s1"},
                {"text": "reading"},
                {"toolCall": {"name": "read", "arguments": {"path": "a.txt"}, "id": "c1"}},
            ],
            "stopReason": "length",
            "usage": {"input": 10},
            "delayMs": 5,
        },
        {"fail": "rate_limit"},
        {"fail": "truncated", "parts": [{"text": "par"}], "errorMessage": "cut"},
    ]
}
EXPECTED_TURNS = (
    Turn(parts=(TextPart("hi"),)),
    Turn(
        parts=(
            ThinkingPart("…", "s1"),
            TextPart("reading"),
            ToolCallPart("read", {"path": "a.txt"}, "c1"),
        ),
        stop_reason="length",
        usage={"input": 10},
        delay_ms=5,
    ),
    Turn(failure=Failure("rate_limit")),
    Turn(parts=(TextPart("par"),), failure=Failure("truncated", "cut")),
)


def test_script_from_data_builds_the_expected_turns() -> None:
    assert script_from_data(FULL_SCRIPT) == EXPECTED_TURNS


def test_load_script_reads_a_json_file(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(FULL_SCRIPT), encoding="utf-8")
    assert load_script(path) == EXPECTED_TURNS


def test_load_script_reads_a_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(
        "turns:\n"
        "  - text: hi\n"
        "  - parts:\n"
        "      - {thinking: '…', signature: s1}\n"
        "      - text: reading\n"
        "      - toolCall: {name: read, arguments: {path: a.txt}, id: c1}\n"
        "    stopReason: length\n"
        "    usage: {input: 10}\n"
        "    delayMs: 5\n"
        "  - fail: rate_limit\n"
        "  - {fail: truncated, parts: [{text: par}], errorMessage: cut}\n",
        encoding="utf-8",
    )
    assert load_script(path) == EXPECTED_TURNS


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        ([{"text": "ok"}, {"text": "ok"}, {"parts": [{"txt": "x"}]}],
         "turns[2].parts[0]: unknown part kind 'txt'"),
        ([{"text": 5}], "turns[0].text: expected a string, got int"),
        ([{"parts": [{"toolCall": {"arguments": {}}}]}],
         "turns[0].parts[0].toolCall.name: expected a string, got null"),
        ([{"parts": [{"toolCall": {"name": "read", "arguments": []}}]}],
         "turns[0].parts[0].toolCall.arguments: expected an object, got list"),
        ([{"fail": "meltdown"}], "turns[0].fail: unknown failure kind 'meltdown'"),
        ([{"text": "a", "stopReason": "stop"}],
         "turns[0].stopReason: only 'length' can be forced, got 'stop'"),
        ([{"text": "a", "delayMs": -3}], "turns[0].delayMs: must not be negative, got -3"),
        ([{"text": "a", "usage": {"inputs": 3}}], "turns[0].usage.inputs: unknown usage field"),
        ([{"text": "a", "colour": "red"}], "turns[0]: unknown field 'colour'"),
        ([{"text": "a", "parts": []}], "turns[0]: use either 'parts' or a single 'text'"),
        ([{"fail": "malformed_arguments"}],
         "turns[0].fail: malformed_arguments needs at least one tool call part"),
        ([{"text": "a", "errorMessage": "x"}],
         "turns[0].errorMessage: only allowed together with 'fail'"),
        (["hello"], "turns[0]: expected an object, got str"),
    ],
)  # fmt: skip
def test_script_error_names_the_turn_and_field(turns: list[Any], expected: str) -> None:
    with pytest.raises(ScriptError) as caught:
        script_from_data({"turns": turns})
    assert str(caught.value) == expected
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("data", [[], {"turn": []}, {"turns": {}}, None])
def test_script_without_a_turns_list_is_rejected(data: Any) -> None:
    with pytest.raises(ScriptError, match="script: "):
        script_from_data(data)


def test_unparseable_file_gives_a_single_line_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"turns": [\n{"text": }', encoding="utf-8")
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    assert "not valid JSON" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_extension_and_missing_file_are_script_errors(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="unsupported script extension"):
        load_script(_write(tmp_path / "script.txt", "{}"))
    with pytest.raises(ScriptError, match="cannot read script file"):
        load_script(tmp_path / "missing.json")


def _write(path: Path, content: str) -> Path:
    path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("latin1.yaml", "turns:\n  - text: caf\xe9\n".encode("latin-1"), "not UTF-8 text"),
        ("usage.json", b'{"turns": [{"text": "hi", "usage": 12}]}',
         "turns[0].usage: expected an object, got int"),
        ("nan.json", b'{"turns": [{"toolCall": {"name": "x", "arguments": {"a": NaN}}}]}',
         "NaN is not JSON"),
        ("deep.json", b'{"turns": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested too deeply"),
    ],
)
def test_a_bad_script_file_is_one_error_naming_the_file(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ScriptError) as caught:
        load_script(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and expected in message and "\n" not in message


def test_a_script_whose_aliases_expand_past_the_bound_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 10)]
    script = tmp_path / "laughs.yaml"
    script.write_text("\n".join(lines) + "\nturns: [{parts: [{text: hi}]}]\n", encoding="utf-8")
    with pytest.raises(ScriptError, match=r"laughs.yaml: .*aliases counted as often as used"):
        load_script(script)


def test_a_script_nested_deeper_than_the_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    for depth in (201, 100_000):
        script = tmp_path / f"deep-{depth}.json"
        script.write_text('{"turns": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
        with pytest.raises(ScriptError, match=f"deep-{depth}.json: "):
            load_script(script)


def test_a_folder_given_as_a_script_is_named_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "script.yaml").mkdir()
    with pytest.raises(ScriptError, match=r"script\.yaml: is a folder, not a script file"):
        load_script(tmp_path / "script.yaml")
