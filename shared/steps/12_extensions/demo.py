"""Step 12 demo: three example extensions watch an agent at work in a scratch project.

The MockModel plays a fixed script: delete `build/` with `rm -rf`, edit `.env`, then count
the words of the README with a tool an extension added. The person, played by a script,
answers "no" to the confirmation. A project extension that is not trusted is never imported.
"""

import asyncio
import tempfile
from pathlib import Path

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry
from pi.ai import AbortController, MockProvider, Model, Providers, ToolCall
from pi.coding_agent import Workspace, coding_tools
from pi.coding_agent.extensions.api import ScriptedUI
from pi.coding_agent.extensions.loader import discover, load_extensions
from pi.coding_agent.extensions.runner import ExtensionRunner, run_prompt

HERE = Path(__file__).resolve().parent
ENV = "API_KEY=sk-live-123\nDEBUG=1\n"
EXAMPLES = ("confirm_dangerous_bash.py", "protect_secrets.py", "word_count_tool.py")
SCRIPT = [
    turn(text("Cleaning up first."), tool_call("bash", {"command": "rm -rf build/"})),
    turn(tool_call("edit", {"path": ".env", "edits": [{"oldText": "DEBUG=1",
                                                        "newText": "DEBUG=0"}]})),
    turn(tool_call("word_count", {"path": "README.md"})),
    turn(text("I left build/ and .env alone; the README has 5 words.")),
]


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "extensions").is_dir():
                return candidate
    raise SystemExit("no data folder found")


def make_project(root: Path) -> None:
    (root / "build").mkdir()
    (root / "build" / "app.bin").write_text("artifact", encoding="utf-8")
    (root / ".env").write_text(ENV, encoding="utf-8")
    (root / "README.md").write_text("# Demo\nTwo lines here.\n", encoding="utf-8")
    (root / ".pi" / "extensions").mkdir(parents=True)
    (root / ".pi" / "extensions" / "sneaky.py").write_text(
        "from pathlib import Path\nPath(__file__).parents[2].joinpath('IMPORTED').touch()\n"
        "def extension(api): pass\n", encoding="utf-8")


async def run(root: Path, ui: ScriptedUI) -> list:
    found, notes = discover(root / "agent-home", root, [data_dir() / "extensions" / n
                                                         for n in EXAMPLES])
    core = coding_tools(Workspace(root), root)
    loaded = load_extensions(found, root, ui, core_tools=[t.name for t in core])
    for line in notes + loaded.diagnostics:
        print(f"  note: {line.replace(str(root), '<project>')}")
    print(f"  loaded: {[p.name for p in found]}")
    print(f"  extension tools: {[t.name for t in loaded.tools()]}, "
          f"commands: {['/' + c for c in loaded.commands()]}")
    config = LoopConfig(model=Model(id="mock-1", api="mock", provider="mock"),
                        stream=Providers({"mock": MockProvider(MockModel(SCRIPT))}).stream,
                        tools=ToolRegistry([*core, *loaded.tools()]))
    result = await run_prompt(ExtensionRunner(loaded.extensions), "Tidy the project.", [],
                              config, lambda event: None, AbortController().signal)
    return list(result.messages) if result else []


def show(messages: list) -> None:
    for message in messages:
        if message.role == "assistant":
            for block in message.content:
                if isinstance(block, ToolCall):
                    print(f"  assistant   calls {block.name} {block.arguments}")
                elif block.type == "text":
                    print(f"  assistant   {block.text}")
        elif message.role == "toolResult":
            state = "error" if message.is_error else "ok"
            print(f"  toolResult  {message.tool_call_id} {state}: {message.content[0].text}")
        else:
            print(f"  {message.role:<11} {message.content}")


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root, ui = Path(scratch).resolve(), ScriptedUI([False])
        make_project(root)
        print("loading:")
        messages = asyncio.run(run(root, ui))
        print("\ntranscript:")
        show(messages)
        print("\nthe person was asked:")
        for question in ui.asked:
            print(f"  {question}  -> no")
        print("\nafterwards:")
        print(f"  build/app.bin still there: {(root / 'build' / 'app.bin').exists()}")
        print(f"  .env unchanged: {(root / '.env').read_text() == ENV}")
        print(f"  sneaky project extension imported: {(root / 'IMPORTED').exists()}")


if __name__ == "__main__":
    main()
