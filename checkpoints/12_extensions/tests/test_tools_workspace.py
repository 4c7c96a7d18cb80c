"""Every path resolves inside the workspace root, or the call becomes an error."""

import asyncio
import os

import pytest

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortSignal, ToolCall
from pi.coding_agent import ReadTool, Workspace, WorkspaceError, WriteTool

STEP = 7


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("inside\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return Workspace(root)


def call(tool, arguments):
    registry = ToolRegistry([tool])
    request = ToolCall(id="c1", name=tool.name, arguments=arguments)
    return asyncio.run(run_tool_call(registry, request, AbortSignal(), lambda _: None, lambda: 0))


def test_relative_and_absolute_paths_inside_the_root_resolve(workspace) -> None:
    inside = workspace.root / "src" / "a.txt"
    assert workspace.resolve("src/a.txt") == inside
    assert workspace.resolve(str(inside)) == inside
    assert workspace.resolve("src/../src/./a.txt") == inside
    assert workspace.resolve(".") == workspace.root
    assert workspace.resolve("new/file.txt") == workspace.root / "new" / "file.txt"


def test_a_leading_at_sign_is_stripped_like_pi(workspace) -> None:
    assert workspace.resolve("@src/a.txt") == workspace.root / "src" / "a.txt"
    assert workspace.resolve("@@x.txt") == workspace.root / "@x.txt"  # one `@`, as Pi strips it


def test_a_tilde_is_the_home_folder_as_in_pi(workspace, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(workspace.root / "src"))
    assert workspace.resolve("~/a.txt") == workspace.root / "src" / "a.txt"
    assert workspace.resolve("~x.txt") == workspace.root / "~x.txt"  # no user called x.txt


def test_a_path_is_judged_where_its_links_lead_not_as_written(workspace) -> None:
    (workspace.root / "src" / "deep").mkdir()
    os.symlink(workspace.root / "src" / "deep", workspace.root / "d")
    # Written, `d/../../a.txt` climbs out; through the link it lands on the root's own file.
    assert workspace.resolve("d/../../a.txt") == workspace.root / "a.txt"


def test_dot_dot_and_absolute_paths_outside_are_refused(workspace) -> None:
    for path in ("../secret.txt", "src/../../secret.txt", str(workspace.root.parent / "secret.txt"),
                 "/etc/passwd", "@../secret.txt"):
        with pytest.raises(WorkspaceError, match="is outside the workspace"):
            workspace.resolve(path)


def test_a_sibling_folder_with_the_root_as_prefix_is_outside(workspace) -> None:
    (workspace.root.parent / "root-other").mkdir()
    with pytest.raises(WorkspaceError):
        workspace.resolve("../root-other/x")


def test_a_symlink_whose_target_escapes_is_refused(workspace) -> None:
    os.symlink(workspace.root.parent / "secret.txt", workspace.root / "link.txt")
    os.symlink(workspace.root.parent, workspace.root / "up")
    for path in ("link.txt", "up/secret.txt", "up/new.txt"):
        with pytest.raises(WorkspaceError, match="through a symlink"):
            workspace.resolve(path)


def test_a_symlink_that_stays_inside_is_followed(workspace) -> None:
    os.symlink(workspace.root / "src", workspace.root / "alias")
    assert workspace.resolve("alias/a.txt") == workspace.root / "src" / "a.txt"


def test_a_root_given_through_a_symlink_still_contains_its_files(tmp_path, workspace) -> None:
    os.symlink(workspace.root, tmp_path / "via-link")
    linked = Workspace(tmp_path / "via-link")
    assert linked.resolve("src/a.txt") == workspace.root / "src" / "a.txt"


def test_a_symlink_loop_is_refused_with_a_workspace_error(workspace) -> None:
    os.symlink("loop", workspace.root / "loop")
    os.symlink("b", workspace.root / "a")
    os.symlink("a", workspace.root / "b")
    for path in ("loop", "loop/x.txt", "a", "src/../b/x.txt"):
        with pytest.raises(WorkspaceError):  # not the RuntimeError of Path.resolve
            workspace.resolve(path)


def test_a_nul_character_is_refused(workspace) -> None:
    with pytest.raises(WorkspaceError):
        workspace.resolve("src/a.txt\x00.png")


def test_a_refused_path_becomes_an_error_result_and_touches_nothing(workspace) -> None:
    read = call(ReadTool(workspace), {"path": "../secret.txt"})
    assert read.is_error and "outside the workspace" in read.content[0].text
    os.symlink(workspace.root.parent, workspace.root / "up")
    write = call(WriteTool(workspace), {"path": "up/planted.txt", "content": "x"})
    assert write.is_error and "through a symlink" in write.content[0].text
    assert not (workspace.root.parent / "planted.txt").exists()

