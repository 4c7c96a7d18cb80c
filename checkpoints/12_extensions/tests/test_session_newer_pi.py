"""A session file from a newer Pi loads, resumes and round-trips byte for byte.

Pi's Google provider signs tool calls (`thoughtSignature`), Pi 0.73 records `responseModel`
and `diagnostics` on replies, and Pi carries entry types along that an older reader does not
know. Pi reads such files; so does the course: unknown fields and entry types are kept and
written back as they were, and an unknown entry never enters a model's context (Pi's
buildSessionContext emits only message, custom_message and branch_summary entries).
"""

import json
from pathlib import Path

from typer.testing import CliRunner

from course.session_cli import session_app
from pi.ai import AssistantMessage, ToolCall, UserMessage
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import MessageEntry, UnknownEntry, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.writer import SessionWriter, fork_session

STEP = 9
T = "2026-03-01T10:00:0{}.000Z"
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3},
         "reasoningTokens": 3}
LINES = [
    {"type": "session", "version": 3, "id": "s-new", "timestamp": T.format(0), "cwd": "/w"},
    {"type": "message", "id": "a1", "parentId": None, "timestamp": T.format(1),
     "message": {"role": "user", "content": "read a", "timestamp": 1, "source": "voice"},
     "origin": {"client": "pi-mobile", "nothing": None}},
    {"type": "message", "id": "a2", "parentId": "a1", "timestamp": T.format(2),
     "message": {"role": "assistant",
                 "content": [{"type": "thinking", "thinking": "look", "thinkingSignature": "s"},
                             {"type": "toolCall", "id": "c1", "name": "read",
                              "arguments": {"path": "a"}, "thoughtSignature": "Zm9vYmFy"}],
                 "api": "google-generative-ai", "provider": "google", "model": "gemini-3",
                 "responseModel": "gemini-3-0125", "usage": USAGE, "stopReason": "toolUse",
                 "timestamp": 2,
                 "diagnostics": [{"type": "retry", "timestamp": 2,
                                  "error": {"message": "overloaded", "code": 529}}]}},
    {"type": "message", "id": "a3", "parentId": "a2", "timestamp": T.format(3),
     "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                 "content": [{"type": "text", "text": "A"}], "isError": False, "timestamp": 3}},
    {"type": "extension_state", "id": "a4", "parentId": "a3", "timestamp": T.format(4),
     "payload": {"open": ["a"], "ratio": 0.5}},
    {"type": "message", "id": "a5", "parentId": "a4", "timestamp": T.format(5),
     "message": {"role": "assistant", "content": [{"type": "text", "text": "A it is."}],
                 "api": "google-generative-ai", "provider": "google", "model": "gemini-3",
                 "usage": USAGE, "stopReason": "stop", "timestamp": 5}},
    {"timestamp": T.format(6), "type": "bookmark", "parentId": "a5", "id": "a6", "note": "é"},
]


def newer_pi_file(tmp_path: Path) -> Path:
    path = tmp_path / "newer.jsonl"
    text = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for line in LINES)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_from_a_newer_pi_loads_with_every_entry(tmp_path: Path) -> None:
    session = read_session(newer_pi_file(tmp_path))
    assert [e.id for e in session.entries] == ["a1", "a2", "a3", "a4", "a5", "a6"]
    unknown = session.entries[3]
    assert isinstance(unknown, UnknownEntry) and unknown.type == "extension_state"
    assert session.tree.leaf_on_load == "a6", "an unknown entry can be the leaf, as in Pi"
    reply = session.entries[1]
    assert isinstance(reply, MessageEntry) and isinstance(reply.message, AssistantMessage)
    assert reply.message.response_model == "gemini-3-0125"
    assert reply.message.diagnostics is not None and reply.message.diagnostics[0]["type"] == "retry"
    call = reply.message.content[1]
    assert isinstance(call, ToolCall) and call.thought_signature == "Zm9vYmFy"


def test_unknown_entries_never_enter_the_context(tmp_path: Path) -> None:
    context = build_context(read_session(newer_pi_file(tmp_path)).tree, "a6")
    assert context.entry_ids == ("a1", "a2", "a3", "a5")
    assert [m.role for m in context.messages] == ["user", "assistant", "toolResult", "assistant"]
    assert [m.role for m in context.llm_messages()] == ["user", "assistant", "toolResult",
                                                        "assistant"]
    assert context.path_length == 6 and context.model is not None
    assert context.model.model_id == "gemini-3"


def test_a_fork_of_it_copies_every_line_byte_for_byte(tmp_path: Path) -> None:
    source = newer_pi_file(tmp_path)
    writer = SessionWriter.resume(read_session(source), ids=sequential_ids(),
                                  clock=fixed_clock(0))
    fork_session(writer, tmp_path / "fork.jsonl", "fork-1").close()
    original = source.read_bytes().splitlines(keepends=True)
    forked = (tmp_path / "fork.jsonl").read_bytes().splitlines(keepends=True)
    assert forked[1:] == original[1:]


def test_resuming_it_appends_and_keeps_every_byte_already_there(tmp_path: Path) -> None:
    path = newer_pi_file(tmp_path)
    before = path.read_bytes()
    writer = SessionWriter.resume(read_session(path), ids=sequential_ids(),
                                  clock=fixed_clock(1_800_000_000_000))
    new_id = writer.append_message(UserMessage(content="and b?", timestamp=7))
    writer.close()
    after = path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 1
    again = read_session(path)
    assert json.loads(after.splitlines()[-1])["parentId"] == "a6"
    assert build_context(again.tree, new_id).entry_ids == ("a1", "a2", "a3", "a5", new_id)


def test_session_info_and_context_read_it(tmp_path: Path) -> None:
    path = newer_pi_file(tmp_path)
    runner = CliRunner()
    info = runner.invoke(session_app, ["info", str(path)], env={"COLUMNS": "200"})
    assert info.exit_code == 0, info.stderr
    assert "extension_state 1" in info.stdout and "bookmark 1" in info.stdout
    context = runner.invoke(session_app, ["context", str(path)])
    assert context.exit_code == 0, context.stderr
    assert [m["entryId"] for m in json.loads(context.stdout)["messages"]] == ["a1", "a2", "a3",
                                                                               "a5"]
    tree = runner.invoke(session_app, ["tree", str(path)], env={"COLUMNS": "200"})
    assert tree.exit_code == 0 and "a4 extension_state" in tree.stdout
