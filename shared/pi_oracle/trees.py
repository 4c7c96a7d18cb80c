"""Seeded random session trees, written by the course, and the facts the course reads from them.

One generator makes a list of operations from a seed (append a message, branch, compact,
label, ...). The course's `SessionWriter` plays the list into a file here; `oracle.mjs` plays
the same list with real Pi's `SessionManager`. Both sides then compute the same facts on both
files (contexts for every leaf, estimates, cut points, `prepareCompaction`, LLM messages, a
fork at every leaf) and the runner compares them. An entry is named by its position among the
entries written (`ref`), so the two writers' ids never need to agree.

`forward=True` adds what current Pi writes and an older reader refuses: `thoughtSignature`,
`responseModel`, `diagnostics`, redacted thinking, and an entry type nobody knows yet.
Every tree also has what Pi 1.x writes: system messages (sections, tools added and removed),
`context_edit` entries (omit, replace with a string or with blocks), `usage` entries,
compactions and branch summaries with `usage`, and retain-none compactions.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

START_MS = 1_767_225_600_000
KEEPS = (1, 200, 2_000, 20_000)
TOOLS = ("read", "write", "edit", "bash", "ls", "grep")
WORDS = ("alpha", "beta", "gamma", "δέλτα", "emoji \U0001F600", "naïve", "line\nbreak", "tab\t",
         "quote \"x\"", "<tag>", "path/to/file.py", "日本語")
Op = dict[str, Any]


class Generator:
    """Operations for one tree; `rng` alone decides everything, so a seed replays exactly."""

    def __init__(self, seed: int, forward: bool, unknown_entries: bool) -> None:
        self.rng = random.Random(seed)
        self.forward = forward
        self.unknown_entries = forward and unknown_entries
        self.ops: list[Op] = []
        self.parents: list[int | None] = []  # parent ref of each entry
        self.kinds: list[str] = []  # entry type, or message role
        self.leaf: int | None = None
        self.clock = START_MS

    def text(self, low: int = 5, high: int = 400) -> str:
        size = int(self.rng.triangular(low, high, low + (high - low) / 6))
        words: list[str] = []
        while sum(map(len, words)) < size:
            words.append(self.rng.choice(WORDS) if self.rng.random() < 0.3
                         else "w" * self.rng.randint(1, 12))
        return " ".join(words)

    def tick(self) -> int:
        self.clock += self.rng.randint(1, 5_000)
        return self.clock

    def image(self) -> dict[str, Any]:
        return {"type": "image", "data": "iVBORw0KGgo" + "A" * self.rng.randint(0, 40),
                "mimeType": self.rng.choice(("image/png", "image/jpeg"))}

    def entry(self, op: Op, kind: str) -> int:
        self.ops.append(op)
        self.parents.append(self.leaf)
        self.kinds.append(kind)
        self.leaf = len(self.kinds) - 1
        return self.leaf

    def path(self) -> list[int]:
        refs, at = [], self.leaf
        while at is not None:
            refs.append(at)
            at = self.parents[at]
        return refs[::-1]

    def message(self, message: dict[str, Any]) -> int:
        return self.entry({"op": "message", "message": message}, message["role"])

    def user(self) -> None:
        content: Any = self.text()
        if self.rng.random() < 0.4:
            content = [{"type": "text", "text": content}]
            if self.rng.random() < 0.4:
                content.append(self.image())
        self.message({"role": "user", "content": content, "timestamp": self.tick()})

    def usage(self) -> dict[str, Any]:
        parts = [self.rng.randint(0, 30_000) for _ in range(4)]
        total = sum(parts) if self.rng.random() < 0.8 else 0
        cost = {k: round(self.rng.random(), 4) for k in ("input", "output", "cacheRead",
                                                          "cacheWrite")}
        return {"input": parts[0], "output": parts[1], "cacheRead": parts[2],
                "cacheWrite": parts[3], "totalTokens": total,
                "cost": {**cost, "total": round(sum(cost.values()), 4)}}

    def tool_call(self, number: int) -> dict[str, Any]:
        name = self.rng.choice(TOOLS)
        path = f"src/{self.rng.choice(('a', 'b', 'c'))}.py"
        arguments: dict[str, Any] = {"bash": {"command": f"ls {path}"},
                                     "ls": {"path": "src"}, "grep": {"pattern": "x"}}.get(
            name, {"path": path, "content": self.text(1, 80)} if name == "write"
            else {"path": path, "oldText": "a", "newText": "b"} if name == "edit"
            else {"path": path})
        call = {"type": "toolCall", "id": f"call_{self.clock}_{number}", "name": name,
                "arguments": arguments}
        if self.forward and self.rng.random() < 0.3:
            call["thoughtSignature"] = "sig-" + self.text(3, 20)
        return call

    def assistant(self) -> None:
        blocks: list[dict[str, Any]] = []
        if self.rng.random() < 0.4:
            thinking: dict[str, Any] = {"type": "thinking", "thinking": self.text()}
            if self.rng.random() < 0.5:
                thinking["thinkingSignature"] = "ts-" + self.text(3, 20)
            if self.forward and self.rng.random() < 0.2:
                thinking["redacted"] = True
            blocks.append(thinking)
        if self.rng.random() < 0.85:
            text: dict[str, Any] = {"type": "text", "text": self.text()}
            if self.rng.random() < 0.2:
                text["textSignature"] = "xs-" + self.text(3, 20)
            blocks.append(text)
        calls = [self.tool_call(i) for i in range(self.rng.choice((0, 0, 1, 1, 2, 3)))]
        stop = "toolUse" if calls else self.rng.choice(("stop", "stop", "stop", "length",
                                                        "error", "aborted"))
        message: dict[str, Any] = {
            "role": "assistant", "content": blocks + calls,
            "api": self.rng.choice(("openai-completions", "anthropic-messages")),
            "provider": self.rng.choice(("openai", "anthropic")),
            "model": self.rng.choice(("gpt-4.1-mini", "claude-sonnet-4-5")),
            "usage": self.usage(), "stopReason": stop, "timestamp": self.tick()}
        if stop == "error":
            message["errorMessage"] = "500 " + self.text(3, 40)
        if self.rng.random() < 0.3:
            message["responseId"] = f"resp_{self.clock}"
        if self.forward and self.rng.random() < 0.3:
            message["responseModel"] = message["model"] + "-2026"
        if self.forward and self.rng.random() < 0.2:
            message["diagnostics"] = [{"type": "warning", "message": self.text(3, 30)}]
        self.message(message)
        for call in calls:
            self.tool_result(call)

    def tool_result(self, call: dict[str, Any]) -> None:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text(1, 1500)}]
        if self.rng.random() < 0.1:
            content.append(self.image())
        result: dict[str, Any] = {"role": "toolResult", "toolCallId": call["id"],
                                  "toolName": call["name"], "content": content,
                                  "isError": self.rng.random() < 0.15, "timestamp": self.tick()}
        if self.rng.random() < 0.3:
            result["details"] = {"note": self.text(1, 20)}
        self.message(result)

    def bash(self) -> None:
        cancelled = self.rng.random() < 0.15
        message: dict[str, Any] = {
            "role": "bashExecution", "command": "make " + self.text(1, 20),
            "output": self.text(0, 300) if self.rng.random() < 0.8 else "",
            "exitCode": None if cancelled else self.rng.choice((0, 0, 1, 2)),
            "cancelled": cancelled, "truncated": self.rng.random() < 0.3,
            "timestamp": self.tick()}
        if message["truncated"] or self.rng.random() < 0.1:
            message["fullOutputPath"] = f"/tmp/pi-bash-{self.clock}.log"
        if self.rng.random() < 0.15:
            message["excludeFromContext"] = True
        self.message(message)

    def compaction(self) -> None:
        path = [ref for ref in self.path() if self.kinds[ref] != "compaction"]
        if not path:
            return
        kept: int | None = self.rng.choice(path[len(path) // 2:] or path)
        details = ({"readFiles": ["src/a.py"], "modifiedFiles": ["src/b.py"]}
                   if self.rng.random() < 0.6 else None)
        op = {"op": "compaction", "summary": "## Goal\n" + self.text(), "firstKept": kept,
              "tokensBefore": self.rng.randint(1_000, 200_000), "details": details,
              "fromHook": self.rng.random() < 0.15}
        op["firstKept"] = None if self.rng.random() < 0.2 else kept  # retain-none
        op["usage"] = self.usage() if self.rng.random() < 0.5 else None
        self.entry(op, "compaction")

    def newer_entry(self) -> None:
        """One of Pi 1.x's additions: a system message, a context edit or a usage entry."""
        choice = self.rng.random()
        if choice < 0.35:
            fields: dict[str, Any] = {"role": "system", "content": self.rng.choice(
                ("", self.text(5, 80), [{"type": "text", "text": self.text(5, 80)}]))}
            if self.rng.random() < 0.6:
                fields["sections"] = {self.rng.choice(("preamble", "cwd", "skills")):
                                      self.rng.choice((None, self.text(5, 60)))}
            if self.rng.random() < 0.5:
                fields["toolsAdded"] = [{"name": name, "description": f"{name} a file",
                                         "parameters": {"type": "object"}}
                                        for name in self.rng.sample(TOOLS, 2)]
            if self.rng.random() < 0.3:
                fields["toolsRemoved"] = [{"name": self.rng.choice(TOOLS)}]
            self.message({**fields, "timestamp": self.tick()})
        elif choice < 0.8:
            editable = [ref for ref in self.path() if self.kinds[ref] in (
                "user", "assistant", "toolResult", "custom_message")]
            if not editable:
                return
            replacement = self.rng.choice((None, {"content": self.text(1, 60)}, {"content": [
                {"type": "text", "text": self.text(1, 60)}]}))
            self.entry({"op": "context_edit", "target": self.rng.choice(editable),
                        "replacement": replacement}, "context_edit")
        else:
            self.entry({"op": "usage", "kind": self.rng.choice(("cache_warm", "title")),
                        "provider": "anthropic", "model": "claude-sonnet-4-5",
                        "usage": self.usage(), "note": self.rng.choice((None, "warm-up"))},
                       "usage")

    def branch_summary(self) -> None:
        target = self.rng.choice([None, *range(len(self.kinds))])
        self.leaf = target
        details = {"readFiles": [], "modifiedFiles": ["src/c.py"]} if self.rng.random() < 0.5 \
            else None
        summary = self.text() if self.rng.random() < 0.9 else ""
        op = {"op": "branch_summary", "from": target, "summary": summary,
              "details": details, "fromHook": self.rng.random() < 0.2}
        if self.rng.random() < 0.5:
            op["usage"] = self.usage()
        self.entry(op, "branch_summary")

    def step(self) -> None:
        if self.rng.random() < 0.2:
            self.newer_entry()
            return
        choice = self.rng.random()
        if choice < 0.22:
            self.user()
        elif choice < 0.45:
            self.assistant()
        elif choice < 0.52:
            self.bash()
        elif choice < 0.58:
            self.compaction()
        elif choice < 0.64:
            self.leaf = self.rng.randrange(len(self.kinds))  # branch
            self.ops.append({"op": "branch", "to": self.leaf})
        elif choice < 0.66:
            self.leaf = None
            self.ops.append({"op": "reset_leaf"})
        elif choice < 0.70:
            self.branch_summary()
        elif choice < 0.74:
            label = self.rng.choice(("keep", "start", "", None, "v" + self.text(1, 9)))
            self.entry({"op": "label", "target": self.rng.randrange(len(self.kinds)),
                        "label": label}, "label")
        elif choice < 0.78:
            self.entry({"op": "custom", "customType": "ext-state",
                        "data": {"n": self.rng.randint(0, 9)}}, "custom")
        elif choice < 0.83:
            content: Any = self.text() if self.rng.random() < 0.5 else [
                {"type": "text", "text": self.text()}, *([self.image()] if self.rng.random() < 0.3
                                                         else [])]
            self.entry({"op": "custom_message", "customType": "ext-note", "content": content,
                        "display": self.rng.random() < 0.7,
                        "details": {"k": 1} if self.rng.random() < 0.3 else None},
                       "custom_message")
        elif choice < 0.88:
            self.entry({"op": "model_change", "provider": "anthropic",
                        "modelId": self.rng.choice(("claude-sonnet-4-5", "claude-opus-4"))},
                       "model_change")
        elif choice < 0.92:
            self.entry({"op": "thinking_level_change",
                        "level": self.rng.choice(("off", "low", "medium", "high"))},
                       "thinking_level_change")
        elif choice < 0.95:
            self.entry({"op": "session_info",
                        "name": self.rng.choice(("  Calc fixes ", "", "   ", "Refactor"))},
                       "session_info")
        elif self.unknown_entries:
            self.entry({"op": "unknown", "entry": {"type": "x_future_entry",
                                                   "payload": {"n": self.rng.random()}}},
                       "x_future_entry")
        else:
            self.user()


def generate(seed: int, forward: bool = False, unknown_entries: bool = False) -> list[Op]:
    """The operations of tree `seed`: a first exchange, then 10 to 60 random steps.

    Unknown entry types only make sense for Pi's writer (direction B): the course never
    writes a type it does not know, it only carries such entries when it reads them.
    """
    gen = Generator(seed, forward, unknown_entries)
    gen.user()
    gen.assistant()
    for _ in range(gen.rng.randint(10, 60)):
        gen.step()
    return gen.ops


def write_course_tree(ops: list[Op], path: Path, seed: int) -> None:
    """Play `ops` with the course's SessionWriter (ids seeded, clock counting up)."""
    from pydantic import TypeAdapter

    from pi.ai import Usage
    from pi.coding_agent.session.entries import (
        SessionHeader,
        StoredMessage,
        iso_timestamp,
        random_ids,
    )
    from pi.coding_agent.session.writer import SessionWriter

    ticks = iter(range(START_MS, START_MS + 10_000_000, 1_000))
    header = SessionHeader(version=3, id=f"tree-{seed}", timestamp=iso_timestamp(START_MS),
                           cwd="/work/tree")
    writer = SessionWriter.create(path, header, ids=random_ids(random.Random(seed)),
                                  clock=lambda: next(ticks))
    ids: list[str] = []
    for op in ops:
        kind = op["op"]
        if kind == "branch":
            writer.branch(ids[op["to"]])
            continue
        if kind == "reset_leaf":
            writer.branch(None)
            continue
        if kind == "message":
            new = writer.append_message(TypeAdapter(StoredMessage).validate_python(op["message"]))
        elif kind == "compaction":
            usage = op.get("usage") and Usage.model_validate(op["usage"])
            new = writer.append_compaction(
                op["summary"], None if op["firstKept"] is None else ids[op["firstKept"]],
                op["tokensBefore"], op["details"], True if op["fromHook"] else None, usage)
        elif kind == "branch_summary":
            source = None if op["from"] is None else ids[op["from"]]
            usage = op.get("usage") and Usage.model_validate(op["usage"])
            new = writer.branch_with_summary(source, op["summary"], op["details"],
                                             True if op["fromHook"] else None, usage)
        elif kind == "context_edit":
            content = op["replacement"] and op["replacement"]["content"]
            new = writer.append_context_edit(ids[op["target"]], content)
        elif kind == "usage":
            new = writer.append_usage(op["kind"], op["provider"], op["model"],
                                      Usage.model_validate(op["usage"]), op["note"])
        elif kind == "label":
            new = writer.append_label(ids[op["target"]], op["label"])
        elif kind == "custom":
            new = writer.append_custom(op["customType"], op["data"])
        elif kind == "custom_message":
            new = writer.append_custom_message(op["customType"], op["content"], op["display"],
                                               op["details"])
        elif kind == "model_change":
            new = writer.append_model_change(op["provider"], op["modelId"])
        elif kind == "thinking_level_change":
            new = writer.append_thinking_level_change(op["level"])
        elif kind == "session_info":
            new = writer.append_session_info(op["name"])
        else:
            raise ValueError(f"the course writer cannot append {kind!r} entries")
        ids.append(new)
    writer.close()


def leaves_of(tree: Any) -> list[str]:
    """Every entry nothing hangs below, plus the leaf on load, in file order."""
    parents = {entry.parent_id for entry in tree.entries}
    found = [entry.id for entry in tree.entries if entry.id not in parents]
    if tree.leaf_on_load is not None and tree.leaf_on_load not in found:
        found.append(tree.leaf_on_load)
    return found


def unlead(value: Any) -> Any:
    """Replace the course's lead sentences before summaries by the markers oracle.mjs uses
    for Pi's (the wording is deliberately our own; docs/divergences.md)."""
    from pi.coding_agent.messages import BRANCH_LEAD, COMPACTION_LEAD

    if isinstance(value, str):
        return value.replace(COMPACTION_LEAD, "<compaction lead>").replace(
            BRANCH_LEAD, "<branch lead>")
    if isinstance(value, dict):
        return {k: unlead(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unlead(v) for v in value]
    return value


def message_json(message: Any) -> dict[str, Any]:
    return message.model_dump(mode="json", by_alias=True, exclude_none=True)  # type: ignore[no-any-return]


def cut_json(cut: Any) -> dict[str, Any]:
    return {"firstKeptEntryIndex": cut.first_kept_entry_index,
            "turnStartIndex": cut.turn_start_index, "isSplitTurn": cut.is_split_turn}


def prepare_json(prep: Any) -> dict[str, Any] | None:
    from pi.coding_agent.compaction.prompts import serialize_conversation
    from pi.coding_agent.session.tokens import estimate_tokens

    if prep is None:
        return None

    def part(messages: list[Any]) -> dict[str, Any]:
        return {"roles": [m.role for m in messages],
                "tokens": sum(estimate_tokens(m) for m in messages),
                "serialized": unlead(serialize_conversation(messages))}

    ops = prep.file_ops
    return {"firstKeptEntryId": prep.first_kept_entry_id, "isSplitTurn": prep.is_split_turn,
            "tokensBefore": prep.tokens_before, "previousSummary": prep.previous_summary,
            "messagesToSummarize": part(prep.messages_to_summarize),
            "turnPrefixMessages": part(prep.turn_prefix_messages),
            "fileOps": {"read": sorted(ops.read), "written": sorted(ops.written),
                        "edited": sorted(ops.edited)}}


def fork_facts(path: Path, leaf: str) -> dict[str, Any]:
    """The course's fork at `leaf`, in the shape oracle.mjs gives for Pi's createBranchedSession:
    each kept entry's id, parent, type and first kept id; the labels written again; the context."""
    from pi.coding_agent.session.context import build_context
    from pi.coding_agent.session.entries import (
        CompactionEntry,
        LabelEntry,
        fixed_clock,
        sequential_ids,
    )
    from pi.coding_agent.session.reader import read_session
    from pi.coding_agent.session.writer import SessionWriter, fork_session

    writer = SessionWriter.resume(read_session(path), ids=sequential_ids(), clock=fixed_clock(0))
    with tempfile.TemporaryDirectory() as folder:
        fork_session(writer, Path(folder) / "fork.jsonl", "fork", leaf_id=leaf).close()
        tree = read_session(Path(folder) / "fork.jsonl").tree
    writer.close()
    return {"chain": [[e.id, e.parent_id, e.type, e.first_kept_entry_id
                       if isinstance(e, CompactionEntry) else None]
                      for e in tree.entries if not isinstance(e, LabelEntry)],
            "labels": [[e.target_id, e.label] for e in tree.entries if isinstance(e, LabelEntry)],
            "messages": [message_json(m) for m in build_context(tree, leaf).messages]}


def course_facts(path: Path) -> dict[str, Any]:
    """What the course reads from one file, in the shape oracle.mjs gives for Pi's reading."""
    from pi.coding_agent.compaction.compact import prepare_compaction
    from pi.coding_agent.compaction.cut_points import find_cut_point
    from pi.coding_agent.compaction.thresholds import CompactionSettings
    from pi.coding_agent.messages import convert_to_llm
    from pi.coding_agent.session.context import build_context, latest_compaction
    from pi.coding_agent.session.reader import read_session
    from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens
    from pi.modes.rpc import session_stats

    tree = read_session(path).tree
    facts: dict[str, Any] = {"entries": len(tree.entries), "leafOnLoad": tree.leaf_on_load,
                             "sessionName": tree.name, "labels": dict(sorted(tree.labels.items())),
                             "stats": session_stats(tree.entries), "leaves": {}}
    for leaf in leaves_of(tree):
        context = build_context(tree, leaf)
        messages = list(context.messages)
        estimate = estimate_context_tokens(messages)
        entries = tree.path_to(leaf)
        after = latest_compaction(entries) + 1
        model = context.model
        facts["leaves"][leaf] = {
            "thinkingLevel": context.thinking_level,
            "model": None if model is None else {"provider": model.provider,
                                                 "modelId": model.model_id},
            "messages": [message_json(m) for m in messages],
            "llm": unlead([message_json(m) for m in convert_to_llm(messages)]),
            "estimates": [estimate_tokens(m) for m in messages],
            "context": {"tokens": estimate.tokens, "usageTokens": estimate.usage_tokens,
                        "trailingTokens": estimate.trailing_tokens,
                        "lastUsageIndex": estimate.last_usage_index},
            "cuts": {str(keep): {
                "afterCompaction": cut_json(find_cut_point(entries, after, len(entries), keep)),
                "wholePath": cut_json(find_cut_point(entries, 0, len(entries), keep))}
                for keep in KEEPS},
            "prepare": {str(keep): prepare_json(prepare_compaction(
                entries, CompactionSettings(keep_recent_tokens=keep))) for keep in KEEPS},
            "fork": fork_facts(path, leaf),
        }
    return facts
