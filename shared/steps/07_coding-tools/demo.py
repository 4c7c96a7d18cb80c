"""Step 07 demo: the agent fixes a bug in a fixture repo, with real tools, on a scripted model.

A scratch copy of `buggy-calc` (its test fails: `add` subtracts) is handed to the agent loop
with the coding tools. The MockModel plays a fixed script: read the test and the code, edit
the bug, run the tests with bash, answer. Then the fixture's tests are run once more, outside
the agent, to check the work.
"""

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from mock_model import MockModel, load_script
from pi.agent import LoopConfig, ToolRegistry, run_loop
from pi.ai import AbortController, MockProvider, Model, Providers, ToolCall, UserMessage
from pi.coding_agent import Workspace, coding_tools

HERE = Path(__file__).resolve().parent


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "workspaces").is_dir():
                return candidate
    raise SystemExit("no data folder found")


def show(message: object) -> None:
    role = getattr(message, "role", "")
    if role == "assistant":
        for block in message.content:  # type: ignore[attr-defined]
            if isinstance(block, ToolCall):
                print(f"  assistant   calls {block.name} {block.arguments}")
            elif block.type == "text":
                print(f"  assistant   {block.text}")
    elif role == "toolResult":
        first = message.content[0].text.splitlines()[0]  # type: ignore[attr-defined]
        print(f"  toolResult  {'error' if message.is_error else 'ok'}: {first}")  # type: ignore[attr-defined]
    else:
        print(f"  {role:<11} {message.content}")  # type: ignore[attr-defined]


async def fix(workspace: Path) -> tuple[list, MockModel]:
    mock = MockModel(load_script(data_dir() / "scripts" / "fix-buggy-calc.yaml"))
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry(coding_tools(Workspace(workspace), workspace)))
    prompt = UserMessage(content="test_calc.py fails. Please fix the bug.", timestamp=0)
    result = await run_loop([prompt], [], config, lambda event: None, AbortController().signal)
    return list(result.messages), mock


def run_tests(workspace: Path) -> str:
    done = subprocess.run([sys.executable, "test_calc.py"], cwd=workspace,
                          capture_output=True, text=True, check=False)
    return f"{done.stdout.strip()} (exit code {done.returncode})"


def main() -> None:
    # The scripted bash call runs `python`: make that the interpreter running this demo.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "buggy-calc"
        shutil.copytree(data_dir() / "workspaces" / "buggy-calc", workspace)
        print(f"before: {run_tests(workspace)}\n")
        messages, mock = asyncio.run(fix(workspace))
        for message in messages:
            show(message)
        calls = [b.id for m in messages if m.role == "assistant" for b in m.content
                 if isinstance(b, ToolCall)]
        results = [m.tool_call_id for m in messages if m.role == "toolResult"]
        print(f"\ntool calls: {len(calls)}, each paired with one result: {calls == results}")
        print(f"model requests: {len(mock.requests)}")
        print(f"after:  {run_tests(workspace)}")


if __name__ == "__main__":
    main()
