"""Step 10 demo: a long scripted session outgrows a small window and is compacted.

The agent loop reads one long note per turn (real `read` tool, scratch workspace) and every
message is written to a session file. After each turn the context size is checked against
the window; once it is above window − reserve, the session is compacted: a cut point, one or
two summary requests to the MockModel, and one compaction entry appended. The last lines
show that the context shrank while the file lost nothing.
"""

import asyncio
import re
import tempfile
import textwrap
from pathlib import Path

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry, run_loop
from pi.ai import AbortController, MockProvider, Model, Providers, UserMessage
from pi.coding_agent import Workspace, coding_tools
from pi.coding_agent.compaction.compact import CompactionResult, compact, prepare_compaction
from pi.coding_agent.compaction.thresholds import (
    CompactionSettings,
    compaction_threshold,
    should_compact,
)
from pi.coding_agent.compaction.utils import projected_tokens
from pi.coding_agent.messages import convert_to_llm
from pi.coding_agent.session.entries import SessionHeader, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens, js_length
from pi.coding_agent.session.writer import SessionWriter

WINDOW = 12_000
SETTINGS = CompactionSettings(reserve_tokens=2_000, keep_recent_tokens=3_000)
MODEL = Model(id="mock-1", api="mock", provider="mock", context_window=WINDOW)
SUMMARY = ("## Goal\nRead the notes one part at a time.\n\n## Progress\n### Done\n"
           "- [x] Parts 1-{n} read\n\n## Next Steps\n1. Read the next part")


def write_notes(folder: Path, parts: int) -> None:
    for part in range(1, parts + 1):
        lines = [f"Part {part}, line {n}: the quick brown fox checks the build again."
                 for n in range(1, 51)]
        (folder / f"part-{part:02d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def agent_reply(request: dict, number: int) -> object:
    """Read the part the user names, then say one sentence about it."""
    last = request["messages"][-1]
    if last["role"] == "user":
        name = last["content"].split()[1]
        return turn(tool_call("read", {"path": name}))
    return turn(text(f"{last['content'][0]['text'].split(',')[0]} is about the build."))


def summariser_reply(request: dict, number: int) -> object:
    prompt = request["messages"][0]["content"][0]["text"]
    if "## Original Request" in prompt:
        return turn(text("## Original Request\nRead the next part."))
    return turn(text(SUMMARY.format(n=prompt.count("[Assistant tool calls]: read"))))


def read_only(workspace: Workspace) -> list:
    """The tools that change nothing: `read, grep, find, ls`."""
    return [tool for tool in coding_tools(workspace) if tool.name in ("read", "grep", "find", "ls")]


async def work_until_full(writer: SessionWriter, workspace: Path) -> None:
    """One prompt per turn, every message written, until the context is too big."""
    providers = Providers({"mock": MockProvider(MockModel(responder=agent_reply))})
    config = LoopConfig(model=MODEL, stream=providers.stream, convert_to_llm=convert_to_llm,
                        tools=ToolRegistry(read_only(Workspace(workspace))))
    threshold = compaction_threshold(WINDOW, SETTINGS)
    for part in range(1, 21):
        prompt = UserMessage(content=f"Read part-{part:02d}.md and tell me what it is about.",
                             timestamp=writer.clock())
        result = await run_loop([prompt], list(writer.context().messages), config,
                                lambda event: None, AbortController().signal)
        for message in result.messages:
            writer.append_message(message)
        tokens = context_size(writer)
        due = should_compact(tokens, WINDOW, SETTINGS)
        print(f"  turn {part:2d}: context {tokens:6,} tokens  (threshold {threshold:,}) "
              f"{'compact!' if due else 'fits'}")
        if due:
            return


def context_size(writer: SessionWriter) -> int:
    return estimate_context_tokens(list(writer.context().messages)).tokens


async def compact_now(writer: SessionWriter) -> CompactionResult:
    path = writer.tree.path_to(writer.leaf_id)
    prep = prepare_compaction(path, SETTINGS)
    assert prep is not None
    index = [entry.id for entry in path].index(prep.first_kept_entry_id)
    kept = sum(estimate_tokens(e.message) for e in path[index:] if e.type == "message")
    print(f"\ncut (keep {SETTINGS.keep_recent_tokens:,} recent tokens): first kept entry "
          f"{prep.first_kept_entry_id} ({path[index].message.role}), entry {index + 1} of "
          f"{len(path)}")
    print(f"  split turn: {prep.is_split_turn}; summarised: {len(prep.messages_to_summarize)} "
          f"messages + {len(prep.turn_prefix_messages)} of the split turn; kept: ~{kept:,} "
          "tokens")
    summariser = MockModel(responder=summariser_reply)
    stream = Providers({"mock": MockProvider(summariser)}).stream
    result = await compact(prep, MODEL, stream)
    for number, request in enumerate(summariser.requests, start=1):
        prompt = request["messages"][0]["content"][0]["text"]
        history = prompt.startswith("<conversation>\n")
        head, tail = ("<conversation>\n", "\n</conversation>") if history else (
            "# Conversation\n", "\n\n# Instructions\n")
        conversation = prompt[len(head):prompt.index(tail)]
        print(f"  request {number} ({'history' if history else 'turn prefix'}): "
              f"{js_length(prompt):,} chars, conversation {js_length(conversation):,} chars, "
              f"previous summary: {'yes' if '<previous-summary>' in prompt else 'no'}")
        rest = prompt.split("</conversation>")[-1] if history else prompt.split(
            "# Instructions\n")[-1]
        headings = re.findall(r"^#{2,3} .*$", rest, re.MULTILINE)
        print(f"    headings: {', '.join(headings)}")
    assert isinstance(result, CompactionResult)
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_notes(folder, 20)
        header = SessionHeader(version=3, id="demo", timestamp="2026-01-01T00:00:00.000Z",
                               cwd="/demo")
        writer = SessionWriter.create(folder / "session.jsonl", header, ids=sequential_ids(),
                                      clock=fixed_clock(1_767_225_600_000, 1000))
        print(f"window {WINDOW:,}, reserve {SETTINGS.reserve_tokens:,}: compact above "
              f"{compaction_threshold(WINDOW, SETTINGS):,} tokens")
        asyncio.run(work_until_full(writer, folder))
        before, tokens_before = [entry.id for entry in writer.tree.entries], context_size(writer)
        result = asyncio.run(compact_now(writer))
        entry_id = writer.append_compaction(result.summary, result.first_kept_entry_id,
                                            result.tokens_before, result.details)
        writer.close()
        messages = list(writer.context().messages)
        print(f"\ncompaction entry {entry_id}: summary {len(result.summary)} chars, "
              f"tokensBefore {result.tokens_before:,}")
        print(textwrap.indent(result.summary, "  "))
        print(f"context before: {tokens_before:,} tokens; after: {len(messages)} messages, "
              f"~{sum(map(estimate_tokens, messages)):,} tokens estimated")
        print(f"  (the last reply's usage still says {context_size(writer):,}, but it measured "
              "the context before the compaction: Pi 1.6 estimates "
              f"{projected_tokens(writer.tree.path_to(writer.leaf_id)):,})")
        ids = [entry.id for entry in read_session(folder / "session.jsonl").entries]
        print(f"file on disk: {len(ids)} entries; all {len(before)} written before are still "
              f"there, unchanged order: {ids[:len(before)] == before}; the last is "
              f"{writer.tree.by_id[ids[-1]].type}")


if __name__ == "__main__":
    main()
