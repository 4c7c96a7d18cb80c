"""Every agent and runtime event has Pi's JSON shape: a type and camelCase fields."""

import asyncio
import json
import re
from pathlib import Path

from mock_model import MockModel, text, tool_call, turn
from pi.agent import ToolExecutionEnd, ToolExecutionUpdate, ToolResult
from pi.ai import MockProvider, Model, Providers, TextContent, ToolResultMessage
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.events import (
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
)
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import CompactionEntry, fixed_clock, sequential_ids
from pi.modes.print_mode import event_json

STEP = 13
CAMEL = re.compile(r"^[a-z][A-Za-z0-9]*$")


DATA = {"sections", "parameters"}  # maps Pi writes as they are: section names, JSON Schemas


def keys_of(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for key, item in value.items() if key not in DATA
                             for k in keys_of(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys_of(item)}
    return set()


def run_events(tmp_path: Path) -> list[dict]:
    mock = MockModel([turn(text("Looking."), tool_call("ls", {"path": "."})),
                      turn(text("Done."))])
    runtime = Runtime(RuntimeConfig(
        cwd=tmp_path, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock"), clock=fixed_clock(0),
        ids=sequential_ids(), session_file=tmp_path / "s.jsonl", system_prompt="test"))
    lines: list[dict] = []
    runtime.subscribe(lambda event: lines.append(event_json(event)))
    asyncio.run(runtime.prompt("list the folder"))
    return lines


def test_every_event_of_a_run_is_json_with_a_type_and_camel_case_keys(tmp_path: Path) -> None:
    lines = run_events(tmp_path)
    assert lines[0] == {"type": "agent_start"} and lines[-1]["type"] == "agent_end"
    for line in lines:
        assert next(iter(line)) == "type"
        json.dumps(line)  # plain JSON values only
        assert all(CAMEL.match(key) for key in keys_of(line)), line["type"]


def test_turn_end_and_agent_end_carry_messages_as_sessions_store_them(tmp_path: Path) -> None:
    lines = run_events(tmp_path)
    turn_end = next(line for line in lines if line["type"] == "turn_end")
    assert turn_end["message"]["role"] == "assistant"
    assert [r["role"] for r in turn_end["toolResults"]] == ["toolResult"]
    stored = [json.loads(x)["message"] for x in (tmp_path / "s.jsonl").read_text().splitlines()
              if json.loads(x)["type"] == "message"]
    assert lines[-1]["messages"] == stored
    update = next(line for line in lines if line["type"] == "message_update")
    assert update["assistantMessageEvent"]["type"] in ("start", "text_start", "text_delta")


def test_tool_events_use_pis_names_and_its_result_shape() -> None:
    result = ToolResultMessage(tool_call_id="c1", tool_name="bash", is_error=True, timestamp=0,
                               content=(TextContent(text="boom"),), details={"code": 1})
    assert event_json(ToolExecutionEnd(tool_call_id="c1", tool_name="bash", result=result,
                                       is_error=True)) == {
        "type": "tool_execution_end", "toolCallId": "c1", "toolName": "bash",
        "result": {"content": [{"type": "text", "text": "boom"}], "details": {"code": 1}},
        "isError": True}
    update = ToolExecutionUpdate(tool_call_id="c1", tool_name="bash", args={"command": "ls"},
                                 partial_result=ToolResult.text("so far"))
    assert event_json(update)["partialResult"] == {"content": [{"type": "text",
                                                                 "text": "so far"}]}


def test_compaction_events_take_pi_1x_names_and_the_end_carries_its_reason_and_result() -> None:
    entry = CompactionEntry(id="c9", parent_id="p", timestamp="t", summary="## Goal",
                            first_kept_entry_id="k1", tokens_before=1234)
    ended = CompactionEnd(reason="overflow", entry=entry, will_retry=True)
    assert event_json(ended) == {
        "type": "compaction_end", "reason": "overflow", "aborted": False, "willRetry": True,
        "result": {"summary": "## Goal", "firstKeptEntryId": "k1", "tokensBefore": 1234}}
    failed = CompactionEnd(reason="manual", entry=None, will_retry=False,
                           error_message="compaction failed")
    assert event_json(failed) == {"type": "compaction_end", "reason": "manual", "aborted": False,
                                  "willRetry": False, "errorMessage": "compaction failed"}
    started = CompactionStart(reason="threshold")
    assert event_json(started) == {"type": "compaction_start", "reason": "threshold"}


def test_auto_retry_events_use_pis_field_names() -> None:
    start = AutoRetryStart(attempt=1, max_attempts=3, delay_ms=2000, error_message="429")
    assert event_json(start) == {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3,
                                 "delayMs": 2000, "errorMessage": "429"}
    assert event_json(AutoRetryEnd(success=True, attempt=1)) == {
        "type": "auto_retry_end", "success": True, "attempt": 1}


def test_a_streamed_delta_goes_without_the_message_so_far_as_pi_16_writes_it(tmp_path) -> None:
    updates = [line for line in run_events(tmp_path) if line["type"] == "message_update"]
    assert updates and all(list(line) == ["type", "usage", "assistantMessageEvent"]
                           for line in updates)
    assert all("partial" not in line["assistantMessageEvent"] for line in updates)
    start = next(line["assistantMessageEvent"] for line in updates
                 if line["assistantMessageEvent"]["type"] == "toolcall_start")
    assert start["toolName"] == "ls" and start["id"]
