"""The scripted fix of buggy-calc works when its tool calls run on a real copy."""

import asyncio
import os
import shutil
import sys

import pytest

from mock_model import ToolCallPart, load_script
from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortSignal, ToolCall
from pi.coding_agent import Workspace, coding_tools

STEP = 7


@pytest.fixture
def project(tmp_path, data_dir, monkeypatch):
    """A scratch copy of the fixture, with this interpreter first on PATH for `python`."""
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    copy = tmp_path / "buggy-calc"
    shutil.copytree(data_dir / "workspaces/buggy-calc", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def run_turn(registry, number, calls):
    """One turn's tool calls, run concurrently like the agent loop runs them."""
    async def main():
        return await asyncio.gather(*(
            run_tool_call(registry, ToolCall(id=f"call_{number}_{index}", name=c.name,
                                             arguments=dict(c.arguments)),
                          AbortSignal(), lambda _: None, lambda: 0)
            for index, c in enumerate(calls)))

    return asyncio.run(main())


def test_the_fixture_tests_fail_before_the_fix(project) -> None:
    registry = ToolRegistry(coding_tools(Workspace(project)))
    (result,) = run_turn(registry, 0, [ToolCallPart("bash", {"command": "python test_calc.py"})])
    assert result.is_error
    assert result.content[0].text.endswith("1 failed, 1 passed\n\n\nCommand exited with code 1")


def test_every_scripted_tool_call_succeeds_and_the_tests_pass_at_the_end(data_dir, project,
                                                                         tmp_path) -> None:
    turns = load_script(data_dir / "scripts/fix-buggy-calc.yaml")
    registry = ToolRegistry(coding_tools(Workspace(project), temp_dir=tmp_path))
    results = []
    for number, turn in enumerate(turns, start=1):
        calls = [part for part in turn.parts if isinstance(part, ToolCallPart)]
        results.append(run_turn(registry, number, calls))
    assert [[r.tool_name for r in turn] for turn in results] == [
        ["read", "read"], ["edit"], ["bash"], []]
    assert not any(r.is_error for turn in results for r in turn)
    assert "def test_add" in results[0][0].content[0].text
    assert "return a - b" in results[0][1].content[0].text
    assert "return a + b" in (project / "calc.py").read_text()
    assert results[2][0].content[0].text == "2 passed\n"
