"""The example extensions, through the real agent loop with the real coding tools."""

import asyncio
from pathlib import Path

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry
from pi.ai import AbortController, MockProvider, Model, Providers
from pi.coding_agent import Workspace, coding_tools
from pi.coding_agent.extensions.api import NoUI, ScriptedUI
from pi.coding_agent.extensions.loader import load_extensions
from pi.coding_agent.extensions.runner import ExtensionRunner, run_command, run_prompt

STEP = 12
EXAMPLES = ("confirm_dangerous_bash.py", "protect_secrets.py", "word_count_tool.py")


def project(tmp_path: Path) -> Path:
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.bin").write_text("artifact", encoding="utf-8")
    (tmp_path / ".env").write_text("API_KEY=sk-live-123\nDEBUG=1\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# Demo\nTwo lines here.\n", encoding="utf-8")
    return tmp_path


def agent_run(data_dir: Path, cwd: Path, turns: list, ui=None, extra=(), timeout=60.0):
    paths = [data_dir / "extensions" / name for name in EXAMPLES] + list(extra)
    core = coding_tools(Workspace(cwd), cwd)
    loaded = load_extensions(paths, cwd, ui or NoUI(), core_tools=[t.name for t in core])
    assert loaded.diagnostics == []
    runner = ExtensionRunner(loaded.extensions, timeout=timeout)
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(MockModel(turns))}).stream,
                        tools=ToolRegistry([*core, *loaded.tools()]))
    result = asyncio.run(run_prompt(runner, "tidy up", [], config, lambda e: None,
                                    AbortController().signal))
    results = [m for m in result.messages if m.role == "toolResult"]
    return {r.tool_call_id: (r.is_error, r.content[0].text) for r in results}, runner


def test_a_declined_rm_rf_is_blocked_with_a_paired_result_and_the_folder_stays(
        data_dir, tmp_path) -> None:
    cwd, ui = project(tmp_path), ScriptedUI([False])
    results, _ = agent_run(data_dir, cwd, [turn(tool_call("bash", {"command": "rm -rf build/"},
                                                          id="c1")), turn(text("ok"))], ui)
    assert results == {"c1": (True, "Blocked: `rm -rf build/` is a recursive delete and the "
                                    "user did not allow it.")}
    assert ui.asked == ["Allow a recursive delete?: rm -rf build/"]
    assert (cwd / "build" / "out.bin").read_text(encoding="utf-8") == "artifact"


def test_an_allowed_rm_rf_runs(data_dir, tmp_path) -> None:
    cwd = project(tmp_path)
    results, _ = agent_run(data_dir, cwd, [turn(tool_call("bash", {"command": "rm -rf build/"},
                                                          id="c1")), turn(text("ok"))],
                           ScriptedUI([True]))
    assert results["c1"][0] is False and not (cwd / "build").exists()


def test_without_a_person_to_ask_a_dangerous_command_is_blocked(data_dir, tmp_path) -> None:
    cwd = project(tmp_path)
    turns = [turn(tool_call("bash", {"command": "git push --force origin main"}, id="c1"),
                  tool_call("bash", {"command": "echo safe"}, id="c2")), turn(text("ok"))]
    results, _ = agent_run(data_dir, cwd, turns)
    assert results["c1"][0] is True and "force push" in results["c1"][1]
    assert results["c2"] == (False, "safe\n")


def test_edits_and_writes_of_secret_files_are_refused_and_the_files_untouched(
        data_dir, tmp_path) -> None:
    cwd = project(tmp_path)
    turns = [turn(tool_call("edit", {"path": ".env", "edits": [
                      {"oldText": "DEBUG=1", "newText": "DEBUG=0"}]}, id="e1"),
                  tool_call("write", {"path": "keys/server.pem", "content": "x"}, id="w1"),
                  tool_call("write", {"path": ".env.example", "content": "API_KEY=\n"}, id="w2")),
             turn(text("ok"))]
    results, _ = agent_run(data_dir, cwd, turns)
    assert results["e1"] == (True, "Refused: .env holds secrets and must not be changed.")
    assert results["w1"][0] is True and not (cwd / "keys").exists()
    assert results["w2"][0] is False and (cwd / ".env.example").exists()
    assert (cwd / ".env").read_text(encoding="utf-8") == "API_KEY=sk-live-123\nDEBUG=1\n"


def test_secret_values_in_tool_output_are_hidden_from_the_model(data_dir, tmp_path) -> None:
    cwd = project(tmp_path)
    turns = [turn(tool_call("read", {"path": ".env"}, id="r1")), turn(text("ok"))]
    results, _ = agent_run(data_dir, cwd, turns)
    assert results["r1"] == (False, "API_KEY=***\nDEBUG=1\n")


def test_the_custom_tool_and_command_of_an_extension_work(data_dir, tmp_path) -> None:
    cwd, ui = project(tmp_path), ScriptedUI()
    turns = [turn(tool_call("word_count", {"path": "README.md"}, id="t1"),
                  tool_call("word_count", {"path": "../outside.md"}, id="t2")), turn(text("ok"))]
    results, _ = agent_run(data_dir, cwd, turns, ui)
    assert results["t1"] == (False, "README.md: 2 lines, 5 words, 23 characters")
    assert results["t2"][0] is True and "outside the workspace" in results["t2"][1]
    loaded = load_extensions([data_dir / "extensions" / "word_count_tool.py"], cwd, ui)
    assert asyncio.run(run_command(ExtensionRunner(loaded.extensions), "/words README.md"))
    assert ui.notes == ["info: README.md: 2 lines, 5 words, 23 characters"]


def test_a_gate_that_hangs_fails_closed_and_the_command_never_runs(data_dir, tmp_path) -> None:
    cwd = project(tmp_path)
    slow = tmp_path / "slow_gate.py"
    slow.write_text("import asyncio\n\ndef extension(api):\n    async def wait(event):\n"
                    "        await asyncio.Event().wait()\n\n    api.on('tool_call', wait)\n",
                    encoding="utf-8")
    turns = [turn(tool_call("bash", {"command": "touch ran.txt"}, id="c1")), turn(text("ok"))]
    results, runner = agent_run(data_dir, cwd, turns, extra=[slow], timeout=0.01)
    assert not (cwd / "ran.txt").exists()
    assert results["c1"] == (True, "Tool call blocked: before_tool_call hook failed: "
                                   "slow_gate.py: tool_call handler failed: timed out after 0.01 s")
    assert runner.diagnostics == ["slow_gate.py: tool_call handler failed: timed out after 0.01 s"]
