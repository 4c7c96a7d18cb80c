"""The context for a leaf is exactly Pi's buildSessionContext, on Pi's own files.

Every `contexts[]` record that real Pi computed for the reference sessions is reproduced:
on the `.v3.jsonl` files by entry id, and on the original v1 files (migrated in memory, with
our own ids) by line. Roles, sources and token estimates are compared message by message.
"""

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from pi.ai import UserMessage
from pi.coding_agent.session.context import SessionContext, build_context
from pi.coding_agent.session.entries import (
    CompactionEntry,
    MessageEntry,
    fixed_clock,
    sequential_ids,
)
from pi.coding_agent.session.reader import LoadedSession, read_session
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.writer import SessionWriter

STEP = 9
FILES = [("large-session", "v3"), ("large-session", "v1"), ("before-compaction", "v3"),
         ("before-compaction", "v1"), ("synthetic-tree", "v3")]


@cache
def load(data_dir: Path, name: str, variant: str) -> LoadedSession:
    suffix = ".v3.jsonl" if variant == "v3" else ".jsonl"
    return read_session(data_dir / "pi-reference" / "sessions" / f"{name}{suffix}")


@cache
def expected(data_dir: Path, name: str) -> dict:
    return json.loads((data_dir / "pi-reference" / "expected" / f"{name}.json").read_text())


def line_of(session: LoadedSession) -> dict[str, int]:
    """Entry id → line, counting the header as line 0 (the reference's convention)."""
    return {entry.id: number for number, entry in enumerate(session.entries, start=1)}


def leaf_for(session: LoadedSession, variant: str, record: dict) -> str:
    return record["leafId"] if variant == "v3" else session.entries[record["leafLine"] - 1].id


def summary(context: SessionContext, lines: dict[str, int]) -> dict:
    """Our context in the reference's vocabulary."""
    tokens = [estimate_tokens(m) for m in context.messages]
    usage = estimate_context_tokens(list(context.messages))
    llm = context.llm_messages()
    return {
        "pathLength": context.path_length,
        "thinkingLevel": context.thinking_level,
        "model": {"provider": context.model.provider, "modelId": context.model.model_id}
        if context.model else None,
        "messageCount": len(context.messages),
        "roleCounts": dict(Counter(m.role for m in context.messages)),
        "roleSequence": [m.role for m in context.messages],
        "convertToLlm": {"count": len(llm), "roleCounts": dict(Counter(m.role for m in llm))},
        "totalEstimatedTokens": sum(tokens),
        "estimateContextTokens": {"tokens": usage.tokens, "usageTokens": usage.usage_tokens,
                                  "trailingTokens": usage.trailing_tokens,
                                  "lastUsageIndex": usage.last_usage_index},
        "messages": [{"index": i, "role": m.role, "sourceLine": lines[e], "estimateTokens": t}
                     for i, (m, e, t) in enumerate(zip(context.messages, context.entry_ids,
                                                       tokens, strict=True))],
    }


def reference_view(record: dict) -> dict:
    keys = ["pathLength", "thinkingLevel", "model", "messageCount", "roleCounts",
            "convertToLlm", "totalEstimatedTokens", "estimateContextTokens"]
    view = {key: record[key] for key in keys}
    view["roleSequence"] = record.get("roleSequence", [m["role"] for m in record["messages"]])
    view["messages"] = [{k: m[k] for k in ("index", "role", "sourceLine", "estimateTokens")}
                        for m in record["messages"]]
    return view


@pytest.mark.parametrize(("name", "variant"), FILES)
def test_every_reference_context_is_reproduced(data_dir: Path, name: str, variant: str) -> None:
    session = load(data_dir, name, variant)
    lines = line_of(session)
    for record in expected(data_dir, name)["contexts"]:
        context = build_context(session.tree, leaf_for(session, variant, record))
        assert summary(context, lines) == reference_view(record), record["label"]


@pytest.mark.parametrize("name", ["large-session", "before-compaction", "synthetic-tree"])
def test_source_entry_ids_are_pis_on_the_v3_files(data_dir: Path, name: str) -> None:
    session = load(data_dir, name, "v3")
    for record in expected(data_dir, name)["contexts"]:
        context = build_context(session.tree, record["leafId"])
        assert context.leaf_id == record["leafId"]
        assert list(context.entry_ids) == [m["sourceEntryId"] for m in record["messages"]]


def test_a_null_leaf_gives_an_empty_context(data_dir: Path) -> None:
    session = load(data_dir, "synthetic-tree", "v3")
    want = expected(data_dir, "synthetic-tree")["contextForNullLeaf"]
    context = build_context(session.tree, None)
    assert (len(context.messages), context.thinking_level, context.model) == (
        want["messageCount"], want["thinkingLevel"], want["model"])


def test_an_unknown_leaf_falls_back_to_the_last_entry(data_dir: Path) -> None:
    session = load(data_dir, "synthetic-tree", "v3")
    fallback = build_context(session.tree, "no-such-id")
    assert fallback == build_context(session.tree, session.tree.leaf_on_load)


def test_an_empty_tree_has_an_empty_context() -> None:
    assert build_context(SessionTree(), "anything").messages == ()


def test_a_null_leaf_has_no_path_and_no_sources(data_dir: Path) -> None:
    context = build_context(load(data_dir, "synthetic-tree", "v3").tree, None)
    assert (context.leaf_id, context.path_length, context.entry_ids) == (None, 0, ())


def small_session(tmp_path: Path) -> SessionWriter:
    w = start_session(tmp_path, "/w", "s", ids=sequential_ids(), clock=fixed_clock(0))
    w.append_message(UserMessage(content="old question", timestamp=0))
    w.append_custom_message("note", "remember this", True, {"n": 1})
    return w


def test_an_extension_message_keeps_its_details_in_the_context(tmp_path: Path) -> None:
    w = small_session(tmp_path)
    note = w.context().messages[-1]
    assert (note.role, note.custom_type, note.content, note.display, note.details) == (
        "custom", "note", "remember this", True, {"n": 1})


def test_a_first_kept_id_not_on_the_path_keeps_nothing_before_the_compaction(
        tmp_path: Path) -> None:
    w = small_session(tmp_path)
    w.append_compaction("all of it", "no-such-entry", 100)
    w.append_message(UserMessage(content="new question", timestamp=0))
    context = w.context()
    assert [m.role for m in context.messages] == ["compactionSummary", "user"]
    assert context.messages[1].content == "new question"


def test_a_compaction_at_the_leaf_shows_its_summary_and_the_kept_entries(
        tmp_path: Path) -> None:
    w = small_session(tmp_path)
    kept = w.append_message(UserMessage(content="kept question", timestamp=0))
    compaction = w.append_compaction("before", kept, 100)
    context = w.context()
    assert context.entry_ids == (compaction, kept)
    assert [m.role for m in context.messages] == ["compactionSummary", "user"]


def test_a_compaction_as_the_first_entry_of_the_path_still_counts() -> None:
    first = CompactionEntry(id="c", parent_id=None, timestamp="2026-01-01T00:00:00.000Z",
                            summary="earlier work", first_kept_entry_id="c", tokens_before=9)
    then = MessageEntry(id="u", parent_id="c", timestamp="2026-01-01T00:00:01.000Z",
                        message=UserMessage(content="go on", timestamp=1))
    context = build_context(SessionTree([first, then]), "u")
    assert context.entry_ids == ("c", "u")
    assert [m.role for m in context.messages] == ["compactionSummary", "user"]


def test_the_compaction_summary_keeps_the_compaction_entry_time(data_dir: Path) -> None:
    session = load(data_dir, "synthetic-tree", "v3")
    context = build_context(session.tree, "60aed926")  # the compaction entry itself
    summary_message = context.messages[0]
    assert summary_message.role == "compactionSummary"
    assert summary_message.timestamp == 1796056262348  # 2026-11-30T16:31:02.348Z
    assert context.entry_ids[0] == "60aed926"


def llm_texts(data_dir: Path, name: str) -> list[tuple[str, str, dict]]:
    """(role, our converted text, Pi's llm record) for every message Pi converted to text."""
    from pi.coding_agent.messages import convert_to_llm

    session = load(data_dir, name, "v3")
    found = []
    for context in expected(data_dir, name)["contexts"]:
        ours = build_context(session.tree, context["leafId"]).messages
        for want in context["messages"]:
            if "llm" in want:
                (converted,) = convert_to_llm([ours[want["index"]]])
                found.append((want["role"], converted.content[0].text, want["llm"]))
    return found


def test_bash_and_extension_messages_reach_the_model_exactly_as_in_pi(data_dir) -> None:
    import hashlib

    checked = 0
    for name in ("before-compaction", "synthetic-tree"):
        for role, text, want in llm_texts(data_dir, name):
            if role in ("bashExecution", "custom"):
                assert hashlib.sha256(text.encode()).hexdigest() == want["textSha256"], role
                checked += 1
    assert checked == 6  # 4 bash executions (notes after a blank line, as Pi), 2 custom


def test_summaries_differ_from_pi_only_in_the_lead_sentence(data_dir) -> None:
    # Deliberate (docs/divergences.md): the sentence before <summary> is our own wording.
    # Pi's texts (recorded as length and hash) are longer or shorter by one constant per kind,
    # so everything after the lead is the same; the hashes differ because the lead does.
    import hashlib

    differences: dict[str, set[int]] = {}
    for name in ("before-compaction", "synthetic-tree"):
        for role, text, want in llm_texts(data_dir, name):
            if role in ("compactionSummary", "branchSummary"):
                assert hashlib.sha256(text.encode()).hexdigest() != want["textSha256"]
                units = len(text.encode("utf-16-le")) // 2
                differences.setdefault(role, set()).add(want["textChars"] - units)
    assert sorted(differences) == ["branchSummary", "compactionSummary"]
    assert all(len(found) == 1 for found in differences.values()), differences


@pytest.mark.parametrize("line", [
    '{"type":"custom_message","customType":"x","content":"hi","display":true',
    '{"type":"branch_summary","fromId":"u","summary":"went elsewhere"',
    '{"type":"compaction","summary":"s","firstKeptEntryId":"u","tokensBefore":5',
])
def test_an_entry_whose_timestamp_is_no_time_still_gives_its_message_as_in_pi(
        tmp_path: Path, line: str) -> None:
    path = tmp_path / "s.jsonl"  # Pi: new Date("yesterday").getTime() is NaN, nothing fails
    path.write_text('{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n'
                    f'{line},"id":"e","parentId":null,"timestamp":"yesterday"}}\n')
    (message,) = build_context(read_session(path).tree, "e").messages
    assert message.timestamp == 0
