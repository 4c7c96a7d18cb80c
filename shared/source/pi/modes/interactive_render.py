"""What the interactive mode shows while a run goes: text as it streams, tools as they run.

The runtime only announces events; this listener turns them into terminal output. Text and
thinking deltas are printed the moment they arrive, without a newline, so the reply grows on
screen the way the model writes it. A tool call gets a line when it starts (name and short
arguments) and one when it ends (ok, or its first error line), followed by a preview of what
the tool returned (its first lines and a marker saying how much more there was, see
interactive_preview.py). Everything else is one line each: an automatic compaction or
retry, a run stopped at its turn limit, a failed or aborted reply. Nothing here changes the
runtime's state. `Screen` (what commands print to) and the `/tree` drawing live here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text
from rich.tree import Tree

from pi.agent import MessageEnd, MessageUpdate, ToolExecutionEnd, ToolExecutionStart
from pi.ai import AssistantMessage, Model, TextContent
from pi.coding_agent.runtime.events import (
    AutoCompactionEnd,
    AutoCompactionStart,
    AutoRetryEnd,
    AutoRetryStart,
    RuntimeEvent,
    TurnLimitReached,
)
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.show import row_parts, tree_rows
from pi.coding_agent.session.writer import SessionWriter
from pi.modes.interactive_preview import first_line, result_preview, short_args



@dataclass
class Screen:
    """What every command works on: the runtime, where to print, the models `/model` knows."""

    runtime: Runtime
    console: Console
    models: Mapping[str, Model]

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style), soft_wrap=True)


class StreamPrinter:
    """A runtime listener that prints a run as it happens; manual compactions stay quiet."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.line_open = False  # streamed text was printed and its line is not ended yet
        self.compaction_reason: str | None = None

    def __call__(self, event: RuntimeEvent) -> None:
        if isinstance(event, MessageUpdate):
            self.on_delta(event)
        elif isinstance(event, MessageEnd):
            self.on_message_end(event)
        elif isinstance(event, ToolExecutionStart):
            self.line(Text.assemble(("→ ", "cyan"), (event.tool_name, "bold cyan"),
                                    f" {short_args(event.args)}"))
        elif isinstance(event, ToolExecutionEnd):
            self.on_tool_end(event)
        elif isinstance(event, AutoCompactionStart | AutoCompactionEnd):
            self.on_compaction(event)
        elif isinstance(event, AutoRetryStart):
            self.line(Text(f"⟳ retry {event.attempt}/{event.max_attempts} in "
                           f"{event.delay_ms / 1000:g} s: {first_line(event.error_message)}",
                           "yellow"))
        elif isinstance(event, AutoRetryEnd):
            outcome = "succeeded" if event.success else f"gave up: {event.final_error}"
            self.line(Text(f"⟳ retry {outcome}", "yellow"))
        elif isinstance(event, TurnLimitReached):
            self.line(Text(f"stopped: the run reached its limit of {event.max_turns} turns "
                           "before the model finished (--max-turns)", "yellow"))

    def on_delta(self, event: MessageUpdate) -> None:
        kind = event.event.type
        if kind in ("text_delta", "thinking_delta"):
            delta = getattr(event.event, "delta", "")
            self.console.print(Text(delta, "dim" if kind == "thinking_delta" else ""), end="",
                               soft_wrap=True)
            self.line_open = True
        elif kind in ("text_end", "thinking_end"):
            self.end_line()

    def on_message_end(self, event: MessageEnd) -> None:
        message = event.message
        if not isinstance(message, AssistantMessage):
            return
        if message.stop_reason == "aborted":
            self.line(Text("(aborted)", "yellow"))
        elif message.stop_reason == "error":
            self.line(Text(f"error: {first_line(message.error_message or 'unknown error')}",
                           "red"))

    def on_tool_end(self, event: ToolExecutionEnd) -> None:
        said = "\n".join(b.text for b in event.result.content if isinstance(b, TextContent))
        if event.is_error:
            self.line(Text.assemble(("✗ ", "red"), event.tool_name,
                                    f" error: {first_line(said)}"))
            return
        self.line(Text.assemble(("✓ ", "green"), event.tool_name, " ok"))
        for line in result_preview(said):
            self.console.print(Text("  " + line, "dim"), soft_wrap=True)

    def on_compaction(self, event: AutoCompactionStart | AutoCompactionEnd) -> None:
        if isinstance(event, AutoCompactionStart):
            self.compaction_reason = event.reason
            if event.reason != "manual":
                self.line(Text(f"⟳ compacting ({event.reason})…", "yellow"))
            return
        if self.compaction_reason == "manual":
            return
        if event.entry_id is None:
            self.line(Text(f"⟳ compaction failed: {event.error_message}", "red"))
        else:
            self.line(Text(f"⟳ compacted: {event.tokens_before} tokens before, entry "
                           f"{event.entry_id}", "yellow"))

    def end_line(self) -> None:
        if self.line_open:
            self.console.print()
            self.line_open = False

    def line(self, text: Text) -> None:
        """A line of its own, even if streamed text was still going on the current one."""
        self.end_line()
        self.console.print(text, soft_wrap=True)


def session_tree(writer: SessionWriter) -> Tree:
    """`pi session tree`'s drawing, with the runtime's current leaf marked, not the last line."""
    top = Tree(Text(f"session {writer.header.id}", "bold"))
    nodes: dict[str | None, Tree] = {None: top}
    for parent_id, entry in tree_rows(writer.tree):
        is_leaf = entry.id == writer.leaf_id
        line = Text.assemble(*row_parts(entry, writer.tree.labels.get(entry.id), is_leaf))
        nodes[entry.id] = nodes[parent_id].add(line)
    return top
