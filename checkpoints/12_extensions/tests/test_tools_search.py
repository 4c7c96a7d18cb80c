"""`grep`, `find` and `ls` honour .gitignore where Pi does, sort, and cap their output."""

import asyncio

import pytest

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortSignal, ToolCall
from pi.coding_agent import FindTool, GrepTool, LsTool, Workspace

STEP = 7

TREE = {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "src/app.py": "def main():\n    return 'Hello'\n",
    "src/util.py": "HELLO = 1\n",
    "build/out.py": "hello\n",
    "debug.log": "hello\n",
    "keep.log": "hello\n",
    ".hidden/notes.txt": "hello\n",
    ".git/config": "hello\n",
    "sub/.gitignore": "local.txt\n",
    "sub/local.txt": "hello\n",
    "sub/other.txt": "say hello\nand bye\n",
}


@pytest.fixture
def workspace(tmp_path):
    for name, text in TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "data.bin").write_bytes(b"hello\x00world")
    return Workspace(tmp_path)


def call(tool, arguments):
    registry = ToolRegistry([tool])
    request = ToolCall(id="c1", name=tool.name, arguments=arguments)
    return asyncio.run(run_tool_call(registry, request, AbortSignal(), lambda _: None, lambda: 0))


def grep(workspace, **arguments):
    return call(GrepTool(workspace), arguments)


def text_of(message) -> str:
    return message.content[0].text


def test_grep_skips_ignored_binary_and_git_files_but_searches_hidden_ones(workspace) -> None:
    assert text_of(grep(workspace, pattern="hello")).splitlines() == [
        ".hidden/notes.txt:1: hello", "keep.log:1: hello", "sub/other.txt:1: say hello"]


def test_grep_ignore_case_literal_and_glob(workspace) -> None:
    assert text_of(grep(workspace, pattern="hello", ignoreCase=True, glob="*.py")).splitlines() == [
        "src/app.py:2:     return 'Hello'", "src/util.py:1: HELLO = 1"]
    assert text_of(grep(workspace, pattern="main()", literal=True)) == "src/app.py:1: def main():"
    assert text_of(grep(workspace, pattern="(unclosed")).startswith("Invalid regular expression")


def test_grep_context_lines_use_dashes_and_paths_are_relative_to_the_search(workspace) -> None:
    text = text_of(grep(workspace, pattern="bye", path="sub", context=1))
    assert text == "other.txt-1- say hello\nother.txt:2: and bye"
    assert text_of(grep(workspace, pattern="bye", path="sub/other.txt")) == "other.txt:2: and bye"


def test_grep_stops_at_the_match_limit_and_says_so(workspace) -> None:
    (workspace.root / "many.txt").write_text("hit\n" * 150)
    message = grep(workspace, pattern="hit")
    lines = text_of(message).split("\n")
    assert len(lines) == 102 and lines[99] == "many.txt:100: hit"
    assert lines[-1] == "[100 matches limit reached. Use limit=200 for more, or refine pattern]"
    assert message.details == {"matchLimitReached": 100}
    assert "limit reached" not in text_of(grep(workspace, pattern="hit", limit=150))


def test_grep_cuts_long_lines_at_500_characters(workspace) -> None:
    (workspace.root / "long.txt").write_text("hit" + "x" * 600 + "\n")
    text = text_of(grep(workspace, pattern="hit", path="long.txt"))
    first, notice = text.split("\n\n")
    assert first == "long.txt:1: hit" + "x" * 497 + "... [truncated]"
    assert notice == "[Some lines truncated to 500 chars. Use read tool to see full lines]"


def test_grep_output_is_head_truncated_at_50kb(workspace) -> None:
    (workspace.root / "wide.txt").write_text(("hit" + "y" * 400 + "\n") * 200)
    message = grep(workspace, pattern="hit", limit=1000)
    body, notice = text_of(message).split("\n\n")
    assert notice == "[50.0KB limit reached]" and len(body.encode()) <= 50 * 1024
    assert message.details["truncation"]["truncatedBy"] == "bytes"


def test_grep_without_matches_says_so(workspace) -> None:
    assert text_of(grep(workspace, pattern="nothing-like-this")) == "No matches found"


def test_find_matches_globs_honours_gitignore_and_sorts(workspace) -> None:
    find = FindTool(workspace)
    assert text_of(call(find, {"pattern": "*.py"})) == "src/app.py\nsrc/util.py"
    assert text_of(call(find, {"pattern": "*.txt"})) == ".hidden/notes.txt\nsub/other.txt"
    assert text_of(call(find, {"pattern": "s*"})) == "src/\nsub/"
    assert text_of(call(find, {"pattern": "src/**/*.py", "path": "."})).count("\n") == 1
    assert text_of(call(find, {"pattern": "*.py", "path": "src"})) == "app.py\nutil.py"
    assert text_of(call(find, {"pattern": "*.rs"})) == "No files found matching pattern"


def test_find_path_patterns_start_at_the_search_folder_and_ignore_a_leading_dot_slash(
        workspace) -> None:
    find = FindTool(workspace)
    (workspace.root / "pkg/src").mkdir(parents=True)
    (workspace.root / "pkg/src/deep.py").write_text("")
    assert text_of(call(find, {"pattern": "src/*.py"})) == "src/app.py\nsrc/util.py"
    assert text_of(call(find, {"pattern": "./src/*.py"})) == "src/app.py\nsrc/util.py"
    assert "pkg/src/deep.py" in text_of(call(find, {"pattern": "**/src/*.py"}))
    assert text_of(call(find, {"pattern": "src/*.py", "path": "pkg"})) == "src/deep.py"


def test_find_caps_the_number_of_results(workspace) -> None:
    for n in range(5):
        (workspace.root / f"f{n}.md").write_text("")
    message = call(FindTool(workspace), {"pattern": "*.md", "limit": 3})
    notice = "[3 results limit reached. Use limit=6 for more, or refine pattern]"
    assert text_of(message) == f"f0.md\nf1.md\nf2.md\n\n{notice}"
    assert message.details == {"resultLimitReached": 3}
    assert "limit" not in text_of(call(FindTool(workspace), {"pattern": "*.md", "limit": 5}))


def test_ls_sorts_case_insensitively_marks_folders_and_shows_dot_files(workspace) -> None:
    (workspace.root / "Zeta.txt").write_text("")
    (workspace.root / "alpha.txt").write_text("")
    assert text_of(call(LsTool(workspace), {})).splitlines() == [
        ".git/", ".gitignore", ".hidden/", "alpha.txt", "build/", "data.bin", "debug.log",
        "keep.log", "src/", "sub/", "Zeta.txt"]


def test_ls_caps_entries_and_reports_empty_folders(workspace) -> None:
    message = call(LsTool(workspace), {"limit": 2})
    notice = "[2 entries limit reached. Use limit=4 for more]"
    assert text_of(message) == f".git/\n.gitignore\n\n{notice}"
    (workspace.root / "empty").mkdir()
    assert text_of(call(LsTool(workspace), {"path": "empty"})) == "(empty directory)"


def test_ls_of_a_file_or_a_missing_path_is_an_error(workspace) -> None:
    assert text_of(call(LsTool(workspace), {"path": "keep.log"})) == "Not a directory: keep.log"
    assert text_of(call(LsTool(workspace), {"path": "nope"})) == "Path not found: nope"


def test_search_tools_do_not_follow_symlinks_out_of_the_workspace(tmp_path, workspace) -> None:
    (tmp_path.parent / f"{tmp_path.name}-secret.txt").write_text("hello\n")
    (workspace.root / "leak.txt").symlink_to(tmp_path.parent / f"{tmp_path.name}-secret.txt")
    assert "leak" not in text_of(grep(workspace, pattern="hello"))
    assert text_of(call(FindTool(workspace), {"pattern": "leak*"})).startswith("No files")


def test_a_link_loop_in_the_workspace_is_skipped_by_the_search_and_named_when_asked_for(
    workspace,
) -> None:
    (workspace.root / ".gitignore").unlink()
    (workspace.root / ".gitignore").symlink_to(workspace.root / ".gitignore")
    (workspace.root / "loop.txt").symlink_to(workspace.root / "loop.txt")
    assert "sub/other.txt:2: and bye" in text_of(grep(workspace, pattern="bye"))
    assert "src/app.py" in text_of(call(FindTool(workspace), {"pattern": "*.py"}))
    refused = grep(workspace, pattern="bye", path="loop.txt")
    assert refused.is_error and text_of(refused) == "Refused: loop.txt is a link loop"


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_gitignore_is_no_rules_instead_of_a_wait_for_ever(workspace) -> None:
    (workspace.root / ".gitignore").unlink()
    __import__("os").mkfifo(workspace.root / ".gitignore")
    assert "sub/other.txt:2: and bye" in text_of(grep(workspace, pattern="bye"))


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="FIFOs are POSIX")
def test_grep_skips_a_fifo_instead_of_waiting_on_it_for_ever(workspace) -> None:
    import os
    os.mkfifo(workspace.root / "pipe.txt")
    result = grep(workspace, pattern="bye")
    assert not result.is_error and result.content[0].text == "sub/other.txt:2: and bye"
    refused = grep(workspace, pattern="bye", path="pipe.txt")
    assert refused.is_error and "FIFO" in refused.content[0].text


def test_a_runaway_pattern_is_refused_naming_the_line_and_the_loop_keeps_running(
    workspace, monkeypatch,
) -> None:
    from pi.coding_agent.tools import grep as grep_module
    monkeypatch.setattr(grep_module, "LINE_TIMEOUT", 0.2)
    (workspace.root / "slow.txt").write_text("a" * 5000 + "!\n")

    async def run() -> tuple[object, int]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.ensure_future(tick())
        request = ToolCall(id="c1", name="grep", arguments={"pattern": "(a+)+$"})
        result = await run_tool_call(ToolRegistry([GrepTool(workspace)]), request,
                                     AbortSignal(), lambda _: None, lambda: 0)
        ticking.cancel()
        return result, ticks

    result, ticks = asyncio.run(run())
    assert result.is_error and "slow.txt:1" in result.content[0].text
    assert ticks > 0  # the event loop went on while the pattern ran


def test_an_abort_ends_a_long_grep_at_once(workspace, monkeypatch) -> None:
    from pi.ai import AbortController
    from pi.coding_agent.tools import grep as grep_module
    monkeypatch.setattr(grep_module, "LINE_TIMEOUT", 0.5)
    (workspace.root / "slow.txt").write_text("a" * 5000 + "!\n")
    controller = AbortController()

    async def run() -> object:
        request = ToolCall(id="c1", name="grep", arguments={"pattern": "(a+)+$"})
        asyncio.get_running_loop().call_later(0.05, controller.abort)
        return await run_tool_call(ToolRegistry([GrepTool(workspace)]), request,
                                   controller.signal, lambda _: None, lambda: 0)

    result = asyncio.run(run())
    assert result.is_error and result.content[0].text == "Operation aborted"


def test_a_bracket_inside_a_glob_class_is_a_literal_bracket_without_a_warning() -> None:
    import warnings

    from pi.coding_agent.tools.walk import compile_glob

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pattern = compile_glob("[[x].txt")
    assert pattern.fullmatch("[.txt") and pattern.fullmatch("x.txt")
    assert not pattern.fullmatch("y.txt")
