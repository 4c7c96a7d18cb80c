"""`python -m course session info|tree|context FILE`: look inside a Pi session file (step 09).

Files are only read. A bad file is one red line, `FILE:LINE: problem`, and exit code 2; text
from the file is printed with control characters escaped, so it cannot drive the terminal.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from course import fail
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import MessageEntry
from pi.coding_agent.session.reader import read_session
from pi.ai.messages import json_text
from course.session_view import one_line_errors, row_text, tree_rows
from pi.coding_agent.session.show import entry_kind, printable
from pi.coding_agent.session.tokens import estimate_context_tokens, estimate_tokens

session_app = typer.Typer(no_args_is_help=True, help="Look inside a Pi session file (.jsonl).")
MAX_INDENT = 12  # levels drawn as indentation (4 columns each); deeper ones say their level
FileArg = Annotated[Path, typer.Argument(help="a Pi session file (.jsonl), any version")]


def console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def joined(counts: Counter[str]) -> str:
    return " · ".join(f"{name} {count}" for name, count in counts.items()) or "none"


@session_app.command("info")
def info(file: FileArg) -> None:
    """Version, entry counts by type and message role, leaf on load, name, labels, warnings."""
    with one_line_errors(file):
        session = read_session(file)
        entries = session.entries
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
            ("entries", f"{len(entries)}: {joined(Counter(entry.type for entry in entries))}"),
            ("messages", joined(Counter(entry.message.role for entry in entries
                                        if isinstance(entry, MessageEntry)))),
            ("leaf on load", leaf_text), ("labels", labels or "none"),
            ("warnings", "; ".join(session.warnings) or "none"),
        ]
        out = console()
        for name, value in rows:
            out.print(Text.assemble((f"{name:<13}", "bold"), " ", printable(value)))


@session_app.command("tree")
def tree(file: FileArg) -> None:
    """The session as a tree: a straight chain stays in one column, a branch indents."""
    with one_line_errors(file):
        session = read_session(file)
        leaf = session.tree.leaf_on_load
        top = Tree(Text(f"session {printable(session.header.id)}", "bold"))
        nodes: dict[str | None, tuple[Tree, int]] = {None: (top, 0)}
        for parent_id, entry in tree_rows(session.tree):
            line = row_text(entry, session.tree.labels.get(entry.id), entry.id == leaf)
            under, depth = nodes[parent_id]
            if depth < MAX_INDENT:
                nodes[entry.id] = (under.add(line), depth + 1)
            else:  # deeper levels would not fit a line: listed flat, each with its level
                under.add(Text(f"[level {depth + 1}] ", "dim").append_text(line))
                nodes[entry.id] = (under, depth + 1)
        looped = [entry for entry in session.tree.entries if entry.id not in nodes]
        if looped:  # no root leads to them (their parents loop): shown apart, never dropped
            branch = top.add(Text("entries whose parents loop (no root leads to them)", "red"))
            for entry in looped:
                branch.add(row_text(entry, session.tree.labels.get(entry.id), entry.id == leaf))
        console().print(top)
        if looped:
            ids = ", ".join(printable(entry.id) for entry in looped)
            Console(stderr=True, highlight=False, soft_wrap=True).print(
                Text.assemble(("warning:", "yellow"), f" {file}: entries {ids}: their chain of "
                              "parents loops; shown apart at the end"))


@session_app.command("context")
def context(
    file: FileArg,
    leaf: Annotated[str | None, typer.Option(help="leaf entry id (default: leaf on load)")] = None,
) -> None:
    """The messages a model is sent for a leaf, with entry ids and Pi's token estimates (JSON);
    contextTokens is the last reported usage plus estimates of the messages after it."""
    with one_line_errors(file):
        session = read_session(file)
        if leaf is not None and leaf not in session.tree.by_id:
            raise fail(f"{file}: no entry with id {leaf}")
        built = build_context(session.tree, leaf or session.tree.leaf_on_load)
        tokens = [estimate_tokens(message) for message in built.messages]
        rows = [{"role": message.role, "entryId": entry_id, "tokens": count}
                for message, entry_id, count in zip(built.messages, built.entry_ids, tokens,
                                                    strict=True)]
        model = f"{built.model.provider}/{built.model.model_id}" if built.model else None
        print(json_text({"leafId": built.leaf_id, "messages": rows, "totalTokens": sum(tokens),
                         "contextTokens": estimate_context_tokens(list(built.messages)).tokens,
                         "pathLength": built.path_length, "thinkingLevel": built.thinking_level,
                         "model": model}, indent=2))


from course.compaction_cli import cut, should_compact  # noqa: E402

session_app.command("cut")(cut)
session_app.command("should-compact")(should_compact)
