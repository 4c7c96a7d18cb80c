"""Calls of one reply run side by side (step 06); two edits of one file must both land.

The edit tool never awaits between its read and its write, so on one event loop no other
call can come between them: that is what makes a per-file lock unnecessary here.
"""

import asyncio

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortSignal, ToolCall
from pi.coding_agent import Workspace, coding_tools

STEP = 7


def run_together(workspace, *calls):
    """Run (tool name, arguments) calls concurrently, as step 06's loop does in one turn."""
    registry = ToolRegistry(coding_tools(workspace))

    async def main():
        return await asyncio.gather(*(
            run_tool_call(registry, ToolCall(id=f"c{n}", name=name, arguments=arguments),
                          AbortSignal(), lambda _: None, lambda: 0)
            for n, (name, arguments) in enumerate(calls)))

    return asyncio.run(main())


def edit(path, old, new):
    return "edit", {"path": path, "edits": [{"oldText": old, "newText": new}]}


def test_two_edits_of_one_file_both_apply(tmp_path) -> None:
    (tmp_path / "f.txt").write_text("one\ntwo\n")
    # Three spellings of one file, and a write of another, all in one turn.
    results = run_together(Workspace(tmp_path), edit("f.txt", "one", "1"),
                           edit("./f.txt", "two", "2"),
                           ("write", {"path": "@g.txt", "content": "other"}))
    assert [r.is_error for r in results] == [False, False, False]
    assert (tmp_path / "f.txt").read_text() == "1\n2\n"
    assert (tmp_path / "g.txt").read_text() == "other"
