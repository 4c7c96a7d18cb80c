"""The whole loop with real tools fixes the fixture repo, every call paired."""

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mock_model import MockModel, load_script
from pi.agent import LoopConfig, ToolRegistry, run_loop
from pi.ai import AbortController, MockProvider, Model, Providers, ToolCall, UserMessage
from pi.coding_agent import Workspace, coding_tools

STEP = 7


@pytest.fixture
def repo(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    copy = tmp_path / "buggy-calc"
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", copy)
    return copy


def fixture_tests_pass(repo: Path) -> bool:
    done = subprocess.run([sys.executable, "test_calc.py"], cwd=repo, capture_output=True,
                          check=False)
    return done.returncode == 0


def test_the_scripted_agent_leaves_the_fixture_tests_passing(data_dir: Path, repo: Path) -> None:
    assert not fixture_tests_pass(repo), "the fixture starts broken"
    mock = MockModel(load_script(data_dir / "scripts" / "fix-buggy-calc.yaml"))
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry(coding_tools(Workspace(repo), repo)))
    prompt = UserMessage(content="test_calc.py fails. Please fix the bug.", timestamp=0)
    result = asyncio.run(run_loop([prompt], [], config, lambda e: None, AbortController().signal))

    messages = result.messages
    calls = [b.id for m in messages if m.role == "assistant" for b in m.content
             if isinstance(b, ToolCall)]
    results = [m for m in messages if m.role == "toolResult"]
    assert calls == [r.tool_call_id for r in results] and len(calls) == 4
    assert not any(r.is_error for r in results)
    assert results[-1].content[0].text.strip() == "2 passed"
    assert messages[-1].stop_reason == "stop"
    assert fixture_tests_pass(repo)
