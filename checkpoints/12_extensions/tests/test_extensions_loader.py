"""Finding, trusting, importing and committing extensions, all or nothing."""

import sys
from pathlib import Path

from pi.coding_agent.extensions.loader import discover, load_extensions

STEP = 12

TOOL = '''
from pydantic import BaseModel
from pi.agent.tools import AgentTool, ToolResult

class Nothing(BaseModel):
    pass

def make_tool(tool_name):
    class Echo(AgentTool[Nothing]):
        name = tool_name
        description = "Echo."
        parameters = Nothing
        async def execute(self, call_id, params, signal, on_update):
            return ToolResult.text(tool_name)
    return Echo()
'''


def write(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return path


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, start=1) if needle in line)


def load(paths, cwd: Path, core_tools=()):
    return load_extensions(paths, cwd, core_tools=core_tools)


def test_user_project_and_explicit_files_load_in_that_order(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "project"
    write(agent / "extensions", "b.py", "def extension(api): pass\n")
    write(agent / "extensions", "a.py", "def extension(api): pass\n")
    write(agent / "extensions", "_helper.py", "raise SystemExit('never imported')\n")
    write(cwd / ".pi" / "extensions", "local.py", "def extension(api): pass\n")
    extra = write(tmp_path / "elsewhere", "extra.py", "def extension(api): pass\n")
    paths, notes = discover(agent, cwd, [extra, Path("missing.py")], is_trusted=lambda p: True)
    assert [p.name for p in paths] == ["a.py", "b.py", "local.py", "extra.py"]
    assert notes == [f"{cwd / 'missing.py'}: no such extension file"]


def test_an_untrusted_projects_extension_is_never_imported(tmp_path: Path) -> None:
    cwd, marker = tmp_path / "project", tmp_path / "imported.txt"
    write(cwd / ".pi" / "extensions", "evil.py",
          f"open({str(marker)!r}, 'w').write('ran')\ndef extension(api): pass\n")
    paths, notes = discover(tmp_path / "agent", cwd)
    loaded = load(paths, cwd)
    assert paths == [] and loaded.extensions == [] and not marker.exists()
    assert notes == [f"{cwd / '.pi' / 'extensions'}: 1 extension(s) not loaded: "
                     f"the project {cwd} is not trusted"]
    trusted, _ = discover(tmp_path / "agent", cwd, is_trusted=lambda p: p == cwd)
    assert len(load(trusted, cwd).extensions) == 1 and marker.read_text() == "ran"


def test_files_are_imported_by_path_with_unique_names_and_sys_path_untouched(tmp_path) -> None:
    first = write(tmp_path / "one", "same.py", "NAME = 'one'\ndef extension(api): pass\n")
    second = write(tmp_path / "two", "same.py", "NAME = 'two'\ndef extension(api): pass\n")
    before = list(sys.path)
    loaded = load([first, second], tmp_path)
    assert sys.path == before and len(loaded.extensions) == 2
    names = [n for n, m in sys.modules.items() if n.startswith("_pi_extension_")
             and getattr(m, "__file__", None) in (str(first), str(second))]
    assert len(names) == 2 and len(set(names)) == 2


def test_tools_commands_and_handlers_are_committed_together(tmp_path: Path) -> None:
    path = write(tmp_path, "good.py", TOOL + '''
def extension(api):
    api.register_tool(make_tool("echo"))
    api.register_command("hello", "Say hello", lambda args: None)
    api.on("turn_end", lambda event: None)
''')
    loaded = load([path], tmp_path, core_tools=["read", "bash"])
    assert loaded.diagnostics == []
    assert [t.name for t in loaded.tools()] == ["echo"] and list(loaded.commands()) == ["hello"]
    assert [name for name, _ in loaded.extensions[0].handlers] == ["turn_end"]


def test_a_factory_that_fails_halfway_leaves_nothing_behind(tmp_path: Path) -> None:
    path = write(tmp_path, "half.py", TOOL + '''
def extension(api):
    api.register_tool(make_tool("echo"))
    api.register_command("hello", "Say hello", lambda args: None)
    raise RuntimeError("config file missing")
''')
    loaded = load([path], tmp_path)
    assert loaded.extensions == [] and loaded.tools() == [] and loaded.commands() == {}
    line = line_of(path, "raise RuntimeError")
    assert loaded.diagnostics == [
        f"{path}:{line}: extension not loaded: factory failed: RuntimeError: config file missing"]


def test_a_tool_name_taken_by_the_core_refuses_the_whole_extension(tmp_path: Path) -> None:
    path = write(tmp_path, "clash.py", TOOL + '''
def extension(api):
    api.register_tool(make_tool("echo"))
    try:
        api.register_tool(make_tool("bash"))
    except Exception:
        pass  # swallowing the refusal does not help
''')
    loaded = load([path], tmp_path, core_tools=["bash"])
    assert loaded.tools() == []
    assert loaded.diagnostics == [
        f"{path}: extension not loaded: a tool named 'bash' is already registered"]


def test_a_second_extension_claiming_a_taken_name_is_refused_the_first_stays(tmp_path) -> None:
    first = write(tmp_path, "first.py", TOOL + '''
def extension(api):
    api.register_tool(make_tool("echo"))
    api.register_command("deploy", "Deploy", lambda args: None)
''')
    second = write(tmp_path, "second.py", TOOL + '''
def extension(api):
    api.register_tool(make_tool("other"))
    api.register_command("deploy", "Deploy again", lambda args: None)
''')
    loaded = load([first, second], tmp_path)
    assert [e.path.name for e in loaded.extensions] == ["first.py"]
    assert [t.name for t in loaded.tools()] == ["echo"]
    line = line_of(second, "Deploy again")
    assert loaded.diagnostics == [f"{second}:{line}: extension not loaded: factory failed: "
                                  "ExtensionError: a command named /deploy is already registered"]


def test_a_command_registered_twice_by_one_extension_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "twice.py", '''
def extension(api):
    api.register_command("go", "Go", lambda args: None)
    api.register_command("go", "Go again", lambda args: None)
''')
    loaded = load([path], tmp_path)
    assert loaded.commands() == {} and "/go is already registered" in loaded.diagnostics[0]


def test_broken_files_give_one_line_each_and_loading_goes_on(tmp_path: Path) -> None:
    syntax = write(tmp_path, "a_syntax.py", "def extension(api):\n    return (\n")
    crash = write(tmp_path, "b_crash.py", "x = 1\nraise ValueError('bad import')\n")
    missing = write(tmp_path, "c_nofactory.py", "VALUE = 1\n")
    unknown = write(tmp_path, "d_event.py", "def extension(api):\n    api.on('tool_cal', print)\n")
    async_factory = write(tmp_path, "e_async.py", "async def extension(api):\n    pass\n")
    leaving = write(tmp_path, "f_exit.py", "import sys\nsys.exit(3)\n")
    good = write(tmp_path, "g_good.py", "def extension(api): pass\n")
    loaded = load([syntax, crash, missing, unknown, async_factory, leaving, good], tmp_path)
    assert [e.path for e in loaded.extensions] == [good]
    lines = loaded.diagnostics
    assert len(lines) == 6 and all("\n" not in line for line in lines)
    assert lines[0].startswith(f"{syntax}:2: extension not loaded: import failed: SyntaxError")
    assert lines[1] == f"{crash}:2: extension not loaded: import failed: ValueError: bad import"
    assert lines[2] == f"{missing}: extension not loaded: no extension(api) function"
    assert lines[3].startswith(f"{unknown}:2: extension not loaded: factory failed: "
                               "ExtensionError: unknown event 'tool_cal'")
    assert lines[4] == (f"{async_factory}: extension not loaded: "
                        "the factory must be a plain (not async) function")
    assert lines[5] == f"{leaving}:2: extension not loaded: import failed: SystemExit: 3"
