"""Writes to one file queue up; writes to different files run at the same time."""

import asyncio

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortSignal, ToolCall
from pi.coding_agent import FileLocks, Workspace, coding_tools

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


def test_two_edits_of_one_file_both_apply_one_after_the_other(tmp_path) -> None:
    inside = [0]
    peak = [0]

    async def linger(path) -> None:
        """Hold the writer between its read and its write, and let the loop run others."""
        inside[0] += 1
        peak[0] = max(peak[0], inside[0])
        for _ in range(10):
            await asyncio.sleep(0)
        inside[0] -= 1

    (tmp_path / "f.txt").write_text("one\ntwo\n")
    workspace = Workspace(tmp_path, FileLocks(before_write=linger))
    # Three spellings of one file: the lock is per resolved path, so they share it.
    results = run_together(workspace, edit("f.txt", "one", "1"), edit("./f.txt", "two", "2"),
                           ("write", {"path": "@g.txt", "content": "other"}))
    assert [r.is_error for r in results] == [False, False, False]
    assert (tmp_path / "f.txt").read_text() == "1\n2\n"
    assert peak[0] == 2  # g.txt's write overlapped; the two edits of f.txt never did


def test_writes_to_different_files_overlap_in_time(tmp_path) -> None:
    arrived: list[str] = []
    everyone_in = asyncio.Event()

    async def meet(path) -> None:
        """Returns only once both writers are inside their locks at the same moment."""
        arrived.append(path.name)
        if len(arrived) == 2:
            everyone_in.set()
        await asyncio.wait_for(everyone_in.wait(), timeout=1)  # fails only if serialised

    workspace = Workspace(tmp_path, FileLocks(before_write=meet))
    results = run_together(workspace, ("write", {"path": "a.txt", "content": "a"}),
                           ("write", {"path": "b.txt", "content": "b"}))
    assert [r.is_error for r in results] == [False, False]
    assert sorted(arrived) == ["a.txt", "b.txt"]

