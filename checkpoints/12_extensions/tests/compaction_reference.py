"""Pi's reference sessions and expected results, shared by the compaction tests (step 10 on).

The `.v3.jsonl` files are compared by entry id. A v1 file is migrated while it is read, and
its ids come from a seeded generator (Pi draws random ones), so results on it are compared
by line: line N is entry N-1 of the file (the header is line 0). Summary calls go to a
MockModel that answers with the placeholders Pi's reference run used, and a recording stream
function keeps each request with its options, to compare with `compactDryRun.llmCalls`.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mock_model import MockModel, text, turn
from pi.ai import Context, MockProvider, Model, Providers, StreamOptions, TextContent
from pi.ai.stream import AssistantMessageEventStream
from pi.coding_agent.session.entries import SessionEntry, random_ids
from pi.coding_agent.session.reader import LoadedSession, read_session
from pi.coding_agent.session.tokens import js_length

HISTORY_REPLY = "<<HISTORY_SUMMARY_FROM_LLM>>"
PREFIX_REPLY = "<<TURN_PREFIX_SUMMARY_FROM_LLM>>"
MOCK = Model(id="mock-1", api="mock", provider="mock")
THINKER = Model(id="mock-think", api="mock", provider="mock", reasoning=True)


@dataclass(frozen=True)
class Reference:
    session: LoadedSession
    expected: dict[str, Any]  # Pi 0.58.3 (expected/<name>.json)
    newest: dict[str, Any]  # the pinned newest Pi's prepareCompaction runs (expected/newest/)

    def path(self, leaf_id: str | None = None) -> list[SessionEntry]:
        return self.session.tree.path_to(leaf_id or self.session.entries[-1].id)

    def line(self, entry_id: str) -> int:
        return next(n for n, e in enumerate(self.session.entries, start=1) if e.id == entry_id)

    def id_at(self, line: int) -> str:
        return self.session.entries[line - 1].id


def load(data_dir: Path, name: str, v1: bool = False) -> Reference:
    folder = data_dir / "pi-reference"
    file = folder / "sessions" / f"{name}{'.jsonl' if v1 else '.v3.jsonl'}"
    session = read_session(file, random_ids(random.Random(10)) if v1 else None)
    expected = json.loads((folder / "expected" / f"{name}.json").read_text(encoding="utf-8"))
    newest_file = folder / "expected" / "newest" / f"{name}.prepare.json"
    newest = json.loads(newest_file.read_text(encoding="utf-8")) if newest_file.is_file() else {}
    return Reference(session, expected, newest)


def placeholder(request: dict[str, Any], number: int) -> Any:
    """Answer like Pi's reference run: one placeholder per kind of summary request."""
    prompt = request["messages"][-1]["content"][0]["text"]
    return turn(text(PREFIX_REPLY if "## Original Request" in prompt else HISTORY_REPLY))


@dataclass
class Recorder:
    """A stream function in front of a MockModel that keeps every (context, options)."""

    mock: MockModel = field(default_factory=lambda: MockModel(responder=placeholder))
    calls: list[tuple[Context, StreamOptions]] = field(default_factory=list)

    def stream(self, model: Model, context: Context, options: StreamOptions
               ) -> AssistantMessageEventStream:
        self.calls.append((context, options))
        return Providers({"mock": MockProvider(self.mock)}).stream(model, context, options)

    def structures(self) -> list[dict[str, Any]]:
        return [call_structure(context, options) for context, options in self.calls]


def call_structure(context: Context, options: StreamOptions) -> dict[str, Any]:
    """What we compare of one summary request: everything but Pi's own prompt texts."""
    (message,) = context.messages
    assert isinstance(message.content, tuple) and isinstance(message.content[0], TextContent)
    shape = describe_prompt(message.content[0].text)
    return {"maxTokens": options.max_tokens, "reasoning": getattr(options, "reasoning", None),
            "role": message.role, **{k: v for k, v in shape.items() if k != "totalChars"}}


def pi_call_structure(call: dict[str, Any]) -> dict[str, Any]:
    """The same facts, read from one of Pi's recorded `llmCalls`."""
    prompt = call["prompt"]
    return {"maxTokens": call.get("maxTokens"), "reasoning": call["reasoning"],
            "role": call["messageRole"],
            "startsWithConversationTag": prompt["startsWithConversationTag"],
            "conversationChars": prompt["conversationChars"],
            "conversationSha256": prompt["conversationSha256"],
            "previousSummarySha256": prompt["previousSummarySha256"],
            "instructionHeadings": prompt["instructionHeadings"],
            "hasAdditionalFocusLine": prompt["hasAdditionalFocusLine"]}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def describe_prompt(prompt: str) -> dict[str, Any]:
    """The structure of a summary request, as the reference data records it for Pi's."""
    conversation = re.match(r"<conversation>\n(.*)\n</conversation>", prompt, re.DOTALL)
    previous = re.search(r"\n\n<previous-summary>\n(.*)\n</previous-summary>", prompt, re.DOTALL)
    rest_start = previous.end() if previous else conversation.end() if conversation else 0
    instructions = prompt[rest_start:]
    return {
        "totalChars": js_length(prompt),
        "startsWithConversationTag": prompt.startswith("<conversation>\n"),
        "conversationChars": js_length(conversation[1]) if conversation else None,
        "conversationSha256": sha256(conversation[1]) if conversation else None,
        "previousSummarySha256": sha256(previous[1]) if previous else None,
        "instructionHeadings": re.findall(r"^#{2,3} .*$", instructions, re.MULTILINE),
        "hasAdditionalFocusLine": "\n\nAdditional focus: " in instructions,
    }
