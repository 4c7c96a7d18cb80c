"""Step 13: the rpc commands beyond prompting, served in-process on a scripted MockModel.

The server is the one `--mode rpc` runs, fed lines through a queue instead of stdin, so each
command's response and side effects (files written, entries appended) can be checked fast.
"""

import asyncio
import json
import shutil
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from mock_model import MockModel, fail, text, tool_call, turn
from pi.ai import MockProvider, Model, Providers
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.ids import fixed_clock, sequential_ids
from pi.modes.rpc_io import RpcUI
from pi.modes.rpc_mode import RpcServer

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
        self.server = RpcServer(Runtime(config), self.ui, self.write)
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
        assert (await self.request("prompt", message=message))["success"]
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
            "autoCompactionEnabled": False, "messageCount": 2}
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
        assert state["sessionFile"] != str(original) and state["messageCount"] == 2
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
        assert failed["success"] is False and "nothing recorded" in failed["error"]
        done = (await h.request("compact", customInstructions="keep the x"))["data"]
        assert done["summary"].startswith("## Goal") and done["tokensBefore"] > 1000
        kinds = [json.loads(line)["type"] for line in
                 (tmp_path / "session.jsonl").read_text().splitlines()]
        assert kinds.count("compaction") == 1 and kinds.count("message") == 4
        assert "keep the x" in json.dumps(h.mock.requests[-1])

    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    mock = MockModel([turn(text("ok")), turn(text("ok")), fail("server_error"),
                      turn(text("## Goal\nsummary"))])
    serve(Harness(tmp_path, mock, compaction=settings, auto_compaction=False), talk)


def test_export_html_is_one_self_contained_escaped_page(tmp_path: Path) -> None:
    async def talk(h: Harness) -> None:
        await h.prompt("is <script>alert(1)</script> safe?")
        path = Path((await h.request("export_html", outputPath="out/page.html"))["data"]["path"])
        assert path == tmp_path / "work" / "out" / "page.html"
        page = path.read_text()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "<script" not in page and "http" not in page and "<link" not in page

    serve(Harness(tmp_path, MockModel([turn(text("yes, escaped"))])), talk)


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
