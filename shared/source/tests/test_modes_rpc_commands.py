"""The rpc commands beyond prompting, served in-process on a scripted MockModel.

The server is the one `--mode rpc` runs, fed lines through a queue instead of stdin, so each
command's response and side effects (files written, entries appended) can be checked fast.
"""

import asyncio
import json
import os
import shutil
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

from mock_model import MockModel, fail, text, tool_call, turn
from pi.ai import MockProvider, Model, Providers
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import LabelEntry, fixed_clock, sequential_ids
from pi.modes import rpc
from pi.modes.rpc import RpcServer, RpcUI

STEP = 13


class Harness:
    """An RpcServer with its input queue; `out` is every line it wrote."""

    def __init__(self, tmp_path: Path, mock: MockModel, **options: Any) -> None:
        self.out: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.ui = RpcUI(self.write)
        self.mock = mock
        config = RuntimeConfig(
            cwd=tmp_path / "work", providers=Providers({"mock": MockProvider(mock)}),
            model=Model(id="mock-1", api="mock", provider="mock"),
            clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
            session_file=tmp_path / "session.jsonl", sessions_dir=tmp_path / "sessions",
            agent_dir=tmp_path / "agent", system_prompt="You are a test agent.", ui=self.ui,
            **options)
        config.cwd.mkdir(exist_ok=True)
        self.server = RpcServer(Runtime(config), self.ui)
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()

    def write(self, data: dict[str, Any]) -> None:
        self.out.append(data)
        self.changed.set()

    async def until(self, matches: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while (found := next((d for d in self.out if matches(d)), None)) is None:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)
        return found

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        request_id = f"r{len(self.out)}-{kind}"
        self.lines.put_nowait(json.dumps({"type": kind, "id": request_id, **fields}))
        return await self.until(lambda d: d.get("type") == "response" and d["id"] == request_id)

    async def prompt(self, message: str) -> None:
        await self.prompt_with(message=message)

    async def prompt_with(self, **fields: Any) -> None:
        assert (await self.request("prompt", **fields))["success"]
        assert self.server.run is not None
        await self.server.run


def serve(harness: Harness, talk: Callable[[Harness], Coroutine[Any, Any, None]]) -> None:
    async def main() -> None:
        serving = asyncio.create_task(harness.server.serve(harness.lines))
        await talk(harness)
        harness.lines.put_nowait(None)
        await serving

    asyncio.run(main())


def test_get_state_reports_pis_fields(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("hello")
        await h.request("set_auto_compaction", enabled=False)
        state = (await h.request("get_state"))["data"]
        assert state["model"]["id"] == "mock-1" and state["sessionId"] == "00000001"
        assert state["sessionFile"] == str(tmp_path / "session.jsonl")
        assert {k: state[k] for k in ("isStreaming", "isCompacting", "steeringMode",
                                      "autoCompactionEnabled", "messageCount")} == {
            "isStreaming": False, "isCompacting": False, "steeringMode": "one-at-a-time",
            "autoCompactionEnabled": False, "messageCount": 3}
        bad = await h.request("set_auto_retry", enabled="yes")
        assert bad["success"] is False
        assert (await h.request("get_last_assistant_text"))["data"] == {"text": "hi there"}

    serve(Harness(tmp_path, MockModel([turn(text("hi there"))])), talk)


def test_fork_copies_the_path_before_a_user_message_and_hands_its_text_back(
        tmp_path: Path) -> None:
    original = tmp_path / "session.jsonl"

    async def talk(h: Harness) -> None:
        await h.prompt("first")
        await h.prompt("second")
        points = (await h.request("get_fork_messages"))["data"]["messages"]
        assert [p["text"] for p in points] == ["first", "second"]
        before = original.read_text()
        forked = await h.request("fork", entryId=points[1]["entryId"])
        assert forked["data"] == {"text": "second", "cancelled": False}
        assert original.read_text() == before, "the old file is left as it was"
        state = (await h.request("get_state"))["data"]
        assert state["sessionFile"] != str(original) and state["messageCount"] == 3
        await h.prompt("second, edited")
        header = json.loads(Path(state["sessionFile"]).read_text().splitlines()[0])
        assert header["parentSession"] == str(original)
        bad = await h.request("fork", entryId=points[0]["entryId"] + "x")
        assert bad == {**bad, "success": False, "error": "Invalid entry ID for forking"}

    mock = MockModel([turn(text("one")), turn(text("two")), turn(text("two again"))])
    serve(Harness(tmp_path, mock), talk)


def test_new_session_starts_an_empty_file(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("hello")
        assert (await h.request("new_session"))["data"] == {"cancelled": False}
        state = (await h.request("get_state"))["data"]
        assert state["messageCount"] == 0 and state["sessionId"] != "00000001"
        assert Path(state["sessionFile"]).is_relative_to(tmp_path / "sessions")

    serve(Harness(tmp_path, MockModel([turn(text("hi"))])), talk)


def test_bash_runs_in_the_cwd_and_the_next_request_sees_it(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        (tmp_path / "work" / "note.txt").write_text("from the workspace\n")
        ran = await h.request("bash", command="cat note.txt; exit 3")
        assert ran["data"] == {"output": "from the workspace\n", "exitCode": 3,
                               "cancelled": False, "truncated": False}
        await h.prompt("what did it say?")
        sent = h.mock.requests[0]["messages"][0]["content"][0]["text"]
        assert sent.startswith("Ran `cat note.txt; exit 3`") and "from the workspace" in sent

    serve(Harness(tmp_path, MockModel([turn(text("it said hello"))])), talk)


def test_a_fork_with_a_wrong_id_is_refused_before_the_run_is_stopped(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.request("prompt", message="wait a little")
        await h.until(lambda d: d["type"] == "tool_execution_start")
        bad = await h.request("fork", entryId="no-such-entry")
        assert bad == {**bad, "success": False, "error": "Invalid entry ID for forking"}
        assert h.server.streaming, "Pi checks the id before it stops a running prompt"
        assert h.server.run is not None
        await h.server.run
        assert h.server.runtime.messages[-1].content[0].text == "waited"

    mock = MockModel([turn(tool_call("bash", {"command": "sleep 0.3"})), turn(text("waited"))])
    serve(Harness(tmp_path, mock), talk)


def test_a_bash_command_during_a_run_is_recorded_after_the_run(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.request("prompt", message="wait a little")
        await h.until(lambda d: d["type"] == "tool_execution_start")
        ran = await h.request("bash", command="echo side")
        assert ran["data"]["output"] == "side\n"
        assert h.server.run is not None
        await h.server.run
        await asyncio.sleep(0)  # the recording is the run's done-callback
        roles = [json.loads(line).get("message", {}).get("role") for line in
                 (tmp_path / "session.jsonl").read_text().splitlines()]
        assert roles[-4:] == ["assistant", "toolResult", "assistant", "bashExecution"]

    mock = MockModel([turn(tool_call("bash", {"command": "sleep 0.3"})), turn(text("waited"))])
    serve(Harness(tmp_path, mock), talk)


def test_compact_returns_pis_result_and_appends_one_entry(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("x" * 4000)
        await h.prompt("y" * 4000)
        failed = await h.request("compact")
        assert failed["success"] is False
        assert failed["error"].startswith("Summarization failed: ")  # Pi's thrown message
        done = (await h.request("compact", customInstructions="keep the x"))["data"]
        assert done["summary"].startswith("## Goal") and done["tokensBefore"] > 1000
        kinds = [json.loads(line)["type"] for line in
                 (tmp_path / "session.jsonl").read_text().splitlines()]
        assert kinds.count("compaction") == 1 and kinds.count("message") == 5
        assert "keep the x" in json.dumps(h.mock.requests[-1])

    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    mock = MockModel([turn(text("ok")), turn(text("ok")), fail("server_error"),
                      turn(text("## Goal\nsummary"))])
    # auto-retry off: the failed summary call is reported, not asked again
    serve(Harness(tmp_path, mock, compaction=replace(settings, enabled=False),
                  auto_retry=False), talk)


def test_session_stats_count_every_entry_of_the_file_and_the_summary_call(
        tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("x" * 4000)
        await h.prompt("y" * 4000)
        assert (await h.request("compact"))["success"]
        stats = (await h.request("get_session_stats"))["data"]
        lines = [json.loads(line) for line in
                 (tmp_path / "session.jsonl").read_text().splitlines()]
        usages = [line["message"]["usage"] for line in lines
                  if line["type"] == "message" and line["message"]["role"] == "assistant"]
        usages += [line["usage"] for line in lines if line["type"] == "compaction"]
        assert len(usages) == 3, "two replies and the summary call"
        assert stats["userMessages"] == 2, "the compacted prompt still counts, as in Pi"
        assert stats["assistantMessages"] == 2 and stats["totalMessages"] == 5
        assert stats["tokens"]["input"] == sum(usage["input"] for usage in usages)
        assert stats["tokens"]["output"] == sum(usage["output"] for usage in usages)

    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    mock = MockModel([turn(text("ok")), turn(text("ok")), turn(text("## Goal\nsummary"))])
    serve(Harness(tmp_path, mock, compaction=replace(settings, enabled=False)), talk)


def test_export_html_is_one_self_contained_escaped_page(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("is <script>alert(1)</script> safe?")
        path = Path((await h.request("export_html", outputPath="out/page.html"))["data"]["path"])
        assert path == tmp_path / "work" / "out" / "page.html"
        page = path.read_text()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "<script" not in page and "http" not in page and "<link" not in page

    serve(Harness(tmp_path, MockModel([turn(text("yes, escaped"))])), talk)


def test_export_never_replaces_a_session_nor_opens_what_is_not_a_file(tmp_path: Path) -> None:
    """Pi writes the page wherever it is told; here a session file (this one or another) and
    a FIFO, folder or device are refused in one line, and a previous export is replaced."""
    work, session = tmp_path / "work", tmp_path / "session.jsonl"

    async def talk(h: Harness) -> None:
        await h.prompt("keep me")
        shutil.copy(session, work / "old.jsonl")
        stored = session.read_bytes()
        os.mkfifo(work / "fifo")
        (work / "page.html").write_text("an earlier export")
        for path in (str(session), "old.jsonl", "fifo", ".", "/dev/null"):
            answer = await h.request("export_html", outputPath=path)
            assert not answer["success"] and "\n" not in answer["error"], answer
            assert str(Path(path).name or work.name) in answer["error"]
        assert session.read_bytes() == stored and (work / "old.jsonl").read_bytes() == stored
        assert (await h.request("export_html", outputPath="page.html"))["success"]
        assert (work / "page.html").read_text().startswith("<!DOCTYPE html>")

    serve(Harness(tmp_path, MockModel([turn(text("kept"))])), talk)


def test_get_commands_lists_extension_commands_templates_and_skills(
        tmp_path: Path, data_dir: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "extensions").mkdir(parents=True)
    shutil.copy(data_dir / "extensions" / "word_count_tool.py", agent / "extensions")
    (agent / "prompts").mkdir()
    (agent / "prompts" / "review.md").write_text("---\ndescription: Review a file\n---\nReview $1")
    (agent / "skills" / "pdf").mkdir(parents=True)
    skill = "---\nname: pdf\ndescription: Read PDFs\n---\n"
    (agent / "skills" / "pdf" / "SKILL.md").write_text(skill)

    async def talk(h: Harness) -> None:
        found = (await h.request("get_commands"))["data"]["commands"]
        assert [(c["name"], c["source"]) for c in found] == [
            ("words", "extension"), ("review", "prompt"), ("skill:pdf", "skill")]
        assert found[1]["description"] == "Review a file"

    serve(Harness(tmp_path, MockModel([])), talk)


def test_an_extension_confirm_goes_to_the_client_and_its_answer_decides(
        tmp_path: Path, data_dir: Path) -> None:
    (tmp_path / "agent" / "extensions").mkdir(parents=True)
    shutil.copy(data_dir / "extensions" / "confirm_dangerous_bash.py",
                tmp_path / "agent" / "extensions")

    async def talk(h: Harness) -> None:
        (tmp_path / "work" / "build").mkdir()
        await h.request("prompt", message="clean up")
        asked = await h.until(lambda d: d["type"] == "extension_ui_request")
        assert asked["method"] == "confirm" and asked["message"] == "rm -rf build"
        h.lines.put_nowait(json.dumps({"type": "extension_ui_response", "id": asked["id"],
                                       "confirmed": False}))
        ended = await h.until(lambda d: d["type"] == "tool_execution_end")
        assert ended["isError"] is True and "did not allow" in ended["result"]["content"][0]["text"]
        assert (tmp_path / "work" / "build").is_dir()

    mock = MockModel([turn(tool_call("bash", {"command": "rm -rf build"})), turn(text("ok"))])
    serve(Harness(tmp_path, mock, trusted=False), talk)


THINKER = Model(id="mock-think", api="mock", provider="mock", reasoning=True,
                input=("text", "image"), context_window=50_000)
PLAIN = Model(id="mock-1", api="mock", provider="mock")
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def test_models_are_listed_switched_and_cycled_with_pis_model_shape(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        listed = (await h.request("get_available_models"))["data"]["models"]
        assert [m["id"] for m in listed] == ["mock-1", "mock-think"]
        assert listed[0]["cost"] == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        assert (await h.request("set_thinking_level", level="high"))["success"]
        assert (await h.request("get_state"))["data"]["thinkingLevel"] == "off", "clamped"
        assert (await h.request("cycle_thinking_level"))["data"] is None, "no reasoning"
        switched = await h.request("set_model", provider="mock", modelId="mock-think")
        assert switched["data"]["id"] == "mock-think" and switched["data"]["reasoning"]
        assert (await h.request("cycle_thinking_level"))["data"] == {"level": "minimal"}
        cycled = (await h.request("cycle_model"))["data"]
        assert cycled["model"]["id"] == "mock-1" and cycled["thinkingLevel"] == "off"
        assert cycled["isScoped"] is False
        missing = await h.request("set_model", provider="mock", modelId="nope")
        assert missing["error"] == "Model not found: mock/nope"
        bad = await h.request("set_thinking_level", level="ultra")
        assert bad["success"] is False
        assert (await h.request("set_thinking_level", level="max"))["success"], "Pi 1.x's level"
        assert (await h.request("get_state"))["data"]["thinkingLevel"] == "off", "clamped"

    h = Harness(tmp_path, MockModel([]), models=(PLAIN, THINKER))
    serve(h, talk)
    kinds = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    changes = [(e["type"], e.get("modelId") or e.get("thinkingLevel")) for e in kinds[1:]
               if e["type"] in ("model_change", "thinking_level_change")]
    assert changes[-4:] == [("model_change", "mock-think"), ("thinking_level_change", "minimal"),
                            ("model_change", "mock-1"), ("thinking_level_change", "off")]


def test_a_single_model_cycles_to_nothing(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        assert (await h.request("cycle_model"))["data"] is None

    serve(Harness(tmp_path, MockModel([])), talk)


def test_images_reach_a_model_that_takes_them_and_are_refused_otherwise(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        refused = await h.request("prompt", message="look", images=[IMAGE])
        assert refused["success"] is False and "does not accept images" in refused["error"]
        assert (await h.request("set_model", provider="mock", modelId="mock-think"))["success"]
        await h.prompt_with(message="look", images=[IMAGE])
        sent = h.mock.requests[-1]["messages"][-1]["content"]
        assert sent == [{"type": "text", "text": "look"}, IMAGE]
        broken = await h.request("prompt", message="x", images=[{"type": "image"}])
        assert broken["success"] is False and "images" in broken["error"]

    serve(Harness(tmp_path, MockModel([turn(text("a cat"))]), models=(PLAIN, THINKER)), talk)


def test_session_name_stats_and_abort_retry(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("hello")
        empty = await h.request("set_session_name", name="   ")
        assert empty["error"] == "Session name cannot be empty"
        assert (await h.request("set_session_name", name=" Calc "))["success"]
        assert (await h.request("get_state"))["data"]["sessionName"] == "Calc"
        stats = (await h.request("get_session_stats"))["data"]
        assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1
        assert stats["totalMessages"] == 3 and stats["toolCalls"] == 0
        assert stats["tokens"]["total"] == sum(
            stats["tokens"][k] for k in ("input", "output", "cacheRead", "cacheWrite")) > 0
        assert stats["contextUsage"]["contextWindow"] == 128_000
        assert (await h.request("abort_retry"))["success"]

    serve(Harness(tmp_path, MockModel([turn(text("hi"))])), talk)


def test_clone_and_switch_session_leave_the_old_file_as_it_was(tmp_path: Path) -> None:
    original = tmp_path / "session.jsonl"

    async def talk(h: Harness) -> None:
        await h.prompt("first")
        before = original.read_text()
        assert (await h.request("clone"))["data"] == {"cancelled": False}
        state = (await h.request("get_state"))["data"]
        assert state["sessionFile"] != str(original) and state["messageCount"] == 3
        assert original.read_text() == before
        back = await h.request("switch_session", sessionPath=str(original))
        assert back["data"] == {"cancelled": False}
        assert (await h.request("get_state"))["data"]["sessionFile"] == str(original)
        gone = await h.request("switch_session", sessionPath=str(tmp_path / "none.jsonl"))
        assert gone["success"] is False and "none.jsonl" in gone["error"]

    serve(Harness(tmp_path, MockModel([turn(text("one"))])), talk)


def test_fork_messages_list_user_messages_on_every_branch_as_pi_does(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("first")
        await h.prompt("second")
        runtime = h.server.runtime
        first = next(e for e in runtime.writer.tree.entries if e.type == "message")
        runtime.writer.branch(first.id)  # back to "first": "second" is now on another branch
        points = (await h.request("get_fork_messages"))["data"]["messages"]
        assert [p["text"] for p in points] == ["first", "second"]

    serve(Harness(tmp_path, MockModel([turn(text("one")), turn(text("two"))])), talk)


def test_prompt_answers_started_and_the_run_ends_with_agent_settled(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        answer = await h.request("prompt", message="hello")
        assert answer["data"] == {"disposition": "started"}
        assert h.server.run is not None
        await h.server.run
        assert h.out[-1] == {"type": "agent_settled", "aborted": False}
        assert [d["type"] for d in h.out].index("agent_end") < len(h.out) - 1

    serve(Harness(tmp_path, MockModel([turn(text("hi"))])), talk)


def test_steer_and_follow_up_answer_queued_and_clear_queue_hands_their_text_back(
        tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        assert (await h.request("steer", message="left"))["data"] == {"disposition": "queued"}
        assert (await h.request("follow_up", message="then"))["data"] == {"disposition": "queued"}
        cleared = (await h.request("clear_queue"))["data"]
        assert cleared == {"steering": ["left"], "followUp": ["then"]}
        assert (await h.request("get_state"))["data"]["pendingMessageCount"] == 0
        levels = (await h.request("get_available_thinking_levels"))["data"]
        assert levels == {"levels": ["off"]}  # the mock model does not reason

    serve(Harness(tmp_path, MockModel([])), talk)


def test_get_entries_lists_the_file_after_a_cursor_and_refuses_an_unknown_one(
        tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("hello")
        everything = (await h.request("get_entries"))["data"]
        ids = [entry["id"] for entry in everything["entries"]]
        assert everything["leafId"] == ids[-1] and len(ids) >= 2
        after = (await h.request("get_entries", since=ids[0]))["data"]["entries"]
        assert [entry["id"] for entry in after] == ids[1:]
        missing = await h.request("get_entries", since="nope")
        assert not missing["success"] and missing["error"] == "Entry not found: nope"

    serve(Harness(tmp_path, MockModel([turn(text("hi"))])), talk)


def test_get_tree_nests_each_entry_under_its_parent_and_refuses_past_its_depth(
        tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("hello")
        data = (await h.request("get_tree"))["data"]
        entries = list(h.server.runtime.writer.tree.entries)
        node, depth = data["tree"][0], 1
        while node["children"]:
            assert node["children"][0]["entry"]["parentId"] == node["entry"]["id"]
            node, depth = node["children"][0], depth + 1
        assert depth == len(entries) and node["entry"]["id"] == data["leafId"]
        for _ in range(rpc.TREE_DEPTH):
            h.server.runtime.writer.new(LabelEntry, target_id=entries[0].id, label="x")
        deep = await h.request("get_tree")
        assert not deep["success"] and "get_entries lists them flat" in deep["error"]

    serve(Harness(tmp_path, MockModel([turn(text("hi"))])), talk)
