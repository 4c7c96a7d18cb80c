"""`python -m pi session …`: look inside a Pi session file, of any version (step 09).

`info` counts what the file holds, `tree` draws its branches, `context` shows what a model
would be sent for a leaf, with Pi's token estimates. Files are only read, never changed; an
old file is migrated in memory (its entries get ids 00000001, 00000002, … so the ids shown
are the same on every run). A bad file gives one red line, `FILE:LINE: problem`, and exit
code 2.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import SessionEntry
from pi.coding_agent.session.errors import SessionError
from pi.coding_agent.session.reader import LoadedSession, read_session
from pi.coding_agent.session.show import entry_kind, row_parts, tree_rows
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens

session_app = typer.Typer(no_args_is_help=True, help="Look inside a Pi session file (.jsonl).")
FileArg = Annotated[Path, typer.Argument(help="a Pi session file (.jsonl), any version")]


def console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def fail(text: str) -> typer.Exit:
    """Print one red line and give the exit to raise: code 2 means "bad input"."""
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        Text.assemble(("error:", "red"), f" {text}"))
    return typer.Exit(2)


def load(file: Path) -> LoadedSession:
    """The session, or one red line and exit code 2."""
    try:
        return read_session(file)
    except SessionError as error:
        raise fail(str(error)) from None


def joined(counts: Counter[str]) -> str:
    return " · ".join(f"{name} {count}" for name, count in counts.items()) or "none"


@session_app.command("info")
def info(file: FileArg) -> None:
    """Version, entry counts by type and message role, leaf on load, name, labels, warnings."""
    session = load(file)
    entries, nodes = session.entries, session.tree.nodes  # counting reads the nodes only
    version = str(session.file_version)
    if session.migrated:
        version += f", migrated to {session.header.version} in memory (the file is unchanged)"
    leaf = session.tree.leaf_on_load
    leaf_text = "none (no entries)" if leaf is None else (
        f"{leaf} (entry {len(entries)} of {len(entries)}, {entry_kind(entries[-1])})")
    labels = ", ".join(f"{target}: {label}" for target, label in session.tree.labels.items())
    rows = [
        ("file", str(file)), ("version", version), ("session", session.header.id),
        ("cwd", session.header.cwd), ("name", session.tree.name or "none"),
        ("entries", f"{len(entries)}: {joined(Counter(node.type for node in nodes))}"),
        ("messages", joined(Counter(node.role for node in nodes if node.role is not None))),
        ("leaf on load", leaf_text), ("labels", labels or "none"),
        ("warnings", "; ".join(session.warnings) or "none"),
    ]
    out = console()
    for name, value in rows:
        out.print(Text.assemble((f"{name:<13}", "bold"), " ", value))


@session_app.command("tree")
def tree(file: FileArg) -> None:
    """The session as a tree: a straight chain stays in one column, a branch indents."""
    session = load(file)
    leaf = session.tree.leaf_on_load
    top = Tree(Text(f"session {session.header.id}", "bold"))
    nodes: dict[str | None, Tree] = {None: top}
    for parent_id, entry in tree_rows(session.tree):
        line = row_text(entry, session.tree.labels.get(entry.id), entry.id == leaf)
        nodes[entry.id] = nodes[parent_id].add(line)
    console().print(top)


def row_text(entry: SessionEntry, label: str | None, is_leaf: bool) -> Text:
    """`id kind [label] ◀ leaf  preview`, coloured."""
    return Text.assemble(*row_parts(entry, label, is_leaf))


@session_app.command("context")
def context(
    file: FileArg,
    leaf: Annotated[str | None, typer.Option(help="leaf entry id (default: leaf on load)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """The messages a model is sent for a leaf, with entry ids and Pi's token estimates."""
    session = load(file)
    if leaf is not None and leaf not in session.tree.by_id:
        raise fail(f"{file}: no entry with id {leaf}")
    built = build_context(session.tree, leaf or session.tree.leaf_on_load)
    tokens = [estimate_tokens(message) for message in built.messages]
    rows = [{"role": message.role, "entryId": entry_id, "tokens": count}
            for message, entry_id, count in zip(built.messages, built.entry_ids, tokens,
                                                strict=True)]
    total = sum(tokens)
    context_tokens = estimate_context_tokens(list(built.messages)).tokens
    if as_json:
        report = {"leafId": built.leaf_id, "messages": rows, "totalTokens": total,
                  "contextTokens": context_tokens}
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    table = Table("#", "role", "entry", "tokens", title=f"context for leaf {built.leaf_id}")
    for index, row in enumerate(rows):
        table.add_row(str(index), str(row["role"]), str(row["entryId"]), str(row["tokens"]))
    model = f"{built.model.provider}/{built.model.model_id}" if built.model else "none"
    out = console()
    out.print(table)
    out.print(f"path {built.path_length} entries · thinking {built.thinking_level} · "
              f"model {model}", markup=False)
    out.print(f"estimated tokens {total} · context tokens {context_tokens} (the last "
              "reported usage + estimates of the messages after it)", markup=False)


from pi.compaction_cli import cut, should_compact  # noqa: E402

session_app.command("cut")(cut)
session_app.command("should-compact")(should_compact)
