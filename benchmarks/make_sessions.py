"""Deterministic large Pi sessions (v3) for the benchmarks, written by the course's own writer.

`python benchmarks/make_sessions.py DIR 1000 10000` writes `DIR/session-1000.jsonl`, … The
same size and seed always give the same bytes. The shape follows real coding sessions: a user
prompt, replies with thinking, text and tool calls, tool results of a few hundred to a few
thousand characters (about 1 KB per entry on average, like Pi's own fixtures), with a
thinking-level change now and then, a branch every 200 entries, a label every 1,000 and a
compaction every 2,500.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "shared" / "source") not in sys.path:
    sys.path.insert(0, str(ROOT / "shared" / "source"))

from pi.ai import (  # noqa: E402
    AssistantMessage,
    Cost,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.session.entries import (  # noqa: E402  # noqa: E402
    SessionHeader,
    ThinkingLevel,
    fixed_clock,
    iso_timestamp,
    sequential_ids,
)
from pi.coding_agent.session.writer import SessionWriter  # noqa: E402

START_MS = 1_796_056_262_345
WORDS = ("the", "session", "tree", "keeps", "every", "entry", "append", "only", "and", "a",
         "branch", "is", "second", "child", "def", "parse(line):", "return", "json.loads(line)",
         "#", "compaction", "summary", "tokens", "estimate", "read", "write", "edit", "bash",
         "grep", "find", "ls", "workspace", "path", "file", "error", "result", "context",
         "model", "usage", "leaf", "root", "label", "name", "thinking", "level", "provider",
         "reply", "stream", "event", "tool", "call", "über", "naïve")
LEVELS: tuple[ThinkingLevel, ...] = ("off", "low", "medium", "high")


class Generator:
    """Appends turns to a writer until it holds `size` entries."""

    def __init__(self, writer: SessionWriter, seed: int) -> None:
        self.writer, self.rng = writer, random.Random(seed)
        self.corpus = " ".join(self.rng.choice(WORDS) for _ in range(60_000))
        self.context = 2_000
        self.calls = 0

    def text(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        start = self.rng.randrange(len(self.corpus) - size)
        return self.corpus[start:start + size]

    def reply(self, *blocks: TextContent | ThinkingContent | ToolCall) -> AssistantMessage:
        self.context += self.rng.randint(200, 900)
        cost = Cost(input=0.003, output=0.015, cache_read=0, cache_write=0, total=0.018)
        usage = Usage(input=self.context, output=150, cache_read=0, cache_write=0,
                      total_tokens=self.context + 150, cost=cost)
        stop = "toolUse" if isinstance(blocks[-1], ToolCall) else "stop"
        return AssistantMessage(content=blocks, api="anthropic-messages", provider="anthropic",
                                model="claude-sonnet-4-5", usage=usage, stop_reason=stop,
                                timestamp=START_MS)

    def turn(self) -> None:
        """A prompt, one to four tool rounds, a closing reply."""
        w = self.writer
        w.append_message(UserMessage(content=self.text(50, 300), timestamp=START_MS))
        for _ in range(self.rng.randint(1, 4)):
            self.calls += 1
            call = ToolCall(id=f"call_{self.calls}", name="read",
                            arguments={"path": f"src/{self.text(5, 20).strip()}.py"})
            w.append_message(self.reply(ThinkingContent(thinking=self.text(100, 800)),
                                        TextContent(text=self.text(20, 200)), call))
            w.append_message(ToolResultMessage(
                tool_call_id=call.id, tool_name="read", is_error=False, timestamp=START_MS,
                content=(TextContent(text=self.text(200, 2500)),)))
        w.append_message(self.reply(TextContent(text=self.text(50, 600))))

    def events(self, before: int) -> None:
        """What happens now and then between turns: settings, branches, labels, compactions."""
        w, count = self.writer, len(self.writer.tree.entries)
        if self.rng.random() < 0.1:
            w.append_thinking_level_change(self.rng.choice(LEVELS))
        if count // 200 > before // 200 and w.leaf_id:
            w.branch(w.tree.path_to(w.leaf_id)[-4].id)
        if count // 1000 > before // 1000:
            w.append_label(w.tree.entries[self.rng.randrange(count)].id, self.text(5, 15))
        if count // 2500 > before // 2500 and w.leaf_id:
            kept = w.tree.path_to(w.leaf_id)[-40]
            w.append_compaction(self.text(1000, 3000), kept.id, self.context)
            self.context = 30_000

    def fill(self, size: int) -> None:
        """Turns until `size` entries; the file always ends with a turn (a leaf that is a
        compaction would leave nothing to cut or prepare)."""
        before = 0
        while len(self.writer.tree.entries) < size:
            if before:
                self.events(before)
            before = len(self.writer.tree.entries)
            self.turn()


def make_session(path: Path, size: int, seed: int = 9) -> Path:
    """Write a session of at least `size` entries to `path` (a new file)."""
    header = SessionHeader(version=3, id=f"bench-{size}", timestamp=iso_timestamp(START_MS),
                           cwd="/work/bench")
    writer = SessionWriter.create(path, header, ids=sequential_ids(),
                                  clock=fixed_clock(START_MS + 1, step_ms=997))
    Generator(writer, seed).fill(size)
    writer.close()
    return path


def session_path(folder: Path, size: int) -> Path:
    """Where the generated session of `size` entries lives in `folder`."""
    return folder / f"session-{size}.jsonl"


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: make_sessions.py DIR SIZE [SIZE …]")
    folder = Path(argv[0])
    for size in map(int, argv[1:]):
        print(make_session(session_path(folder, size), size))


if __name__ == "__main__":
    main(sys.argv[1:])
