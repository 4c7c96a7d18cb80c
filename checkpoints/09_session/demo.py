"""Step 09 demo: a session written as Pi's JSONL tree, branched, compacted, read back.

A small session is written with a counter for ids and a fixed clock, so the file is the
same on every run. It branches once, gets a label, a reminder from an "extension" and a
compaction; the tree and the contexts of two leaves are printed. Then a write fails on
purpose, and the file is read again. Last, Pi's own reference sessions are opened: an old
v1 file is migrated in memory and its context estimate is compared with what Pi computed.
"""

import errno
import io
import json
import tempfile
from pathlib import Path

from course.session_view import preview, tree_rows
from pi.ai import (
    AssistantMessage,
    Cost,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import SessionError, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.show import entry_kind
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.writer import SessionWriter, open_text

HERE = Path(__file__).resolve().parent
START = 1_796_056_262_345  # 2026-11-30T16:31:02.345Z


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "pi-reference").is_dir():
                return candidate
    raise SystemExit("no data folder found")


def reply(text: str, tokens: int, call: ToolCall | None = None) -> AssistantMessage:
    cost = Cost(input=0, output=0, cache_read=0, cache_write=0, total=0)
    usage = Usage(input=tokens, output=20, cache_read=0, cache_write=0,
                  total_tokens=tokens + 20, cost=cost)
    blocks = (TextContent(text=text), call) if call else (TextContent(text=text),)
    return AssistantMessage(content=blocks, api="mock", provider="mock", model="mock-1",
                            usage=usage, stop_reason="toolUse" if call else "stop",
                            timestamp=START)


def write_demo(root: Path, opener=open_text) -> SessionWriter:
    w = start_session(root, "/work/calc", "demo", ids=sequential_ids(),
                      clock=fixed_clock(START), opener=opener)
    w.append_model_change("mock", "mock-1")
    ask = w.append_message(UserMessage(content="add() subtracts. Fix it?", timestamp=START))
    call = ToolCall(id="c1", name="read", arguments={"path": "calc.py"})
    w.append_message(reply("Reading calc.py.", 900, call))
    w.append_message(ToolResultMessage(tool_call_id="c1", tool_name="read", is_error=False,
                                       content=(TextContent(text="return a - b"),),
                                       timestamp=START))
    fixed = w.append_message(reply("Fixed: a + b.", 1000))
    w.append_label(ask, "bug report")
    w.branch(fixed)  # back to the reply: the label stays a side branch
    w.append_custom_message("reminder", "Run the tests.", display=True)
    kept = w.append_message(UserMessage(content="Now add a test.", timestamp=START))
    w.append_message(reply("Added test_add.", 1300))
    w.append_compaction("Fixed add(); a test was added.", kept, 1320)
    w.append_message(UserMessage(content="Thanks!", timestamp=START))
    return w


def show_tree(tree: SessionTree, leaf: str | None) -> None:
    level: dict[str | None, int] = {None: 0}
    for anchor, entry in tree_rows(tree):
        level[entry.id] = level[anchor] + 1
        mark = f" [{tree.labels[entry.id]}]" if entry.id in tree.labels else ""
        mark += " <- leaf" if entry.id == leaf else ""
        print(f"  {'  ' * level[anchor]}{entry.id} {entry_kind(entry)}{mark}  {preview(entry)}")


def show_context(tree: SessionTree, leaf: str) -> None:
    context = build_context(tree, leaf)
    parts = [f"{m.role}({estimate_tokens(m)})" for m in context.messages]
    usage = estimate_context_tokens(list(context.messages))
    print(f"  leaf {leaf}: {' '.join(parts)}")
    print(f"    model sees {len(context.llm_messages())} messages; context tokens {usage.tokens}")


class FullDisk(io.StringIO):
    """Accepts two lines, then writes half a line and reports a full disk."""

    def __init__(self, real) -> None:
        super().__init__()
        self.real, self.lines = real, 0

    def write(self, text: str) -> int:
        self.lines += 1
        if self.lines > 3:
            self.real.write(text[: len(text) // 2])
            self.real.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()


def fail_on_purpose(root: Path) -> None:
    print("\na disk that fills up after two entries:")
    broken = start_session(root, "/w", "b", ids=sequential_ids(), clock=fixed_clock(START),
                           opener=lambda path, mode: FullDisk(open_text(path, mode)))
    for text in ("one", "two", "three", "four"):
        try:
            broken.append_message(UserMessage(content=text, timestamp=START))
            print(f"  append {text!r}: ok")
        except SessionError as error:
            print(f"  append {text!r}: {str(error).split(': ', 1)[1]}")
    again = read_session(broken.path)
    print(f"  read back: {len(again.entries)} entries; {again.warnings[0].split(': ', 1)[1]}")


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        w = write_demo(Path(scratch))
        w.close()
        print(f"wrote {w.path.relative_to(scratch)}: "
              f"{len(w.path.read_text().splitlines())} lines\n")
        show_tree(read_session(w.path).tree, w.leaf_id)
        print("\ncontexts:")
        show_context(w.tree, w.leaf_id or "")
        show_context(w.tree, "00000005")
        fail_on_purpose(Path(scratch) / "broken")
    reference(data_dir() / "pi-reference")


def reference(root: Path) -> None:
    print("\nPi's own files:")
    for name in ("large-session", "before-compaction"):
        session = read_session(root / "sessions" / f"{name}.jsonl")
        pi = json.loads((root / "expected" / f"{name}.json").read_text())["contexts"][0]
        context = build_context(session.tree, session.tree.leaf_on_load)
        usage = estimate_context_tokens(list(context.messages))
        print(f"  {name}.jsonl: version {session.file_version} -> {session.header.version} "
              f"in memory, {len(session.entries)} entries, {len(context.messages)} messages "
              f"for the last leaf (Pi: {pi['messageCount']}), context tokens {usage.tokens} "
              f"(Pi: {pi['estimateContextTokens']['tokens']})")


if __name__ == "__main__":
    main()
