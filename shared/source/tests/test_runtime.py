"""The Runtime commits every message as it completes, and fails closed."""

import asyncio
import json
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mock_model import MockModel, fail, load_script, text, tool_call, turn
from pi.ai import AssistantMessage, ImageContent, MockProvider, Model, Providers, UserMessage
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import CompactionEntry, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.writer import open_text

STEP = 13


def make_runtime(tmp_path: Path, mock: MockModel, window: int = 200_000, **options) -> Runtime:
    waits = options.pop("waits", [])

    async def sleep(ms: int) -> None:
        waits.append(ms)

    config = RuntimeConfig(
        cwd=options.pop("cwd", tmp_path), providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock", context_window=window),
        clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
        session_file=tmp_path / "session.jsonl",
        agent_dir=tmp_path / "agent", system_prompt="You are a test agent.", sleep=sleep,
        **options)
    return Runtime(config)


def session_messages(path: Path) -> list[dict]:
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [e["message"] for e in entries if e["type"] == "message"]


def active_path_messages(path: Path) -> list:
    loaded = read_session(path)
    return list(build_context(loaded.tree, loaded.tree.leaf_on_load).messages)


def test_every_message_of_a_run_is_on_disk_when_prompt_returns(tmp_path, data_dir) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(data_dir / "workspaces" / "buggy-calc", repo)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    mock = MockModel(load_script(data_dir / "scripts" / "fix-buggy-calc.yaml"))
    runtime = make_runtime(tmp_path, mock, cwd=repo)
    asyncio.run(runtime.prompt("test_calc.py fails. Please fix the bug."))
    stored = session_messages(tmp_path / "session.jsonl")
    assert [m["role"] for m in stored] == ["system", "user", "assistant", "toolResult",
                                           "toolResult", "assistant", "toolResult", "assistant",
                                           "toolResult", "assistant"]
    assert stored[-2]["content"][0]["text"].strip() == "2 passed"
    assert list(runtime.messages) == active_path_messages(tmp_path / "session.jsonl")


def test_a_new_session_starts_with_its_model_and_thinking_level(tmp_path) -> None:
    make_runtime(tmp_path, MockModel([]))
    entries = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    assert [e["type"] for e in entries] == ["session", "model_change", "thinking_level_change"]


def test_a_resumed_session_keeps_its_thinking_level_and_runs_on_the_model_given(tmp_path) -> None:
    """Pi restores both; the model is the command line's here (docs/divergences.md, row 13)."""
    first = make_runtime(tmp_path, MockModel([turn(text("hi"))]))
    thinker = Model(id="mock-think", api="mock", provider="mock", reasoning=True)
    first.set_model(thinker)
    first.set_thinking_level("high")
    asyncio.run(first.prompt("hello"))
    asyncio.run(first.close())
    lines = (tmp_path / "session.jsonl").read_text()
    again = Runtime(replace(first.config, thinking_level="off"))  # a new run, default level
    assert again.config.thinking_level == "high"
    assert (tmp_path / "session.jsonl").read_text() == lines, "nothing is recorded for it"
    plain = Runtime(replace(first.config, model=Model(id="mock-1", api="mock", provider="mock")))
    assert plain.config.thinking_level == "off", "clamped to what the model allows"
    assert plain.config.model.id == "mock-1" and plain.writer.context().model.model_id == (
        "mock-think"), "the session still names the model it last used"
    for runtime in (again, plain):
        asyncio.run(runtime.close())


def test_a_failed_write_poisons_the_runtime_and_keeps_the_file_readable(tmp_path) -> None:
    budget = {"lines": 5}  # header, model, level, the declaration, the user message; then full

    def opener(path: Path, mode: str):
        real = open_text(path, mode)

        class Guard:
            def write(self, data: str) -> int:
                if budget["lines"] == 0:
                    raise OSError(28, "No space left on device")
                budget["lines"] -= 1
                return real.write(data)

            def flush(self) -> None:
                real.flush()

            def close(self) -> None:
                real.close()

        return Guard()

    mock = MockModel([turn(text("never stored")), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, opener=opener)
    asyncio.run(runtime.prompt("hello"))
    assert runtime.poisoned is not None and "No space left" in str(runtime.poisoned)
    with pytest.raises(RuntimePoisoned, match="No space left"):
        asyncio.run(runtime.prompt("again"))
    assert len(mock.requests) == 1, "nothing more is sent once writes fail"
    loaded = read_session(tmp_path / "session.jsonl")
    assert [e.type for e in loaded.entries] == ["model_change", "thinking_level_change", "message",
                                                "message"]
    assert [m.role for m in runtime.messages] == ["system", "user"], "the unstored reply is gone"


def test_between_runs_the_transcript_follows_entries_the_agent_did_not_record(tmp_path) -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    runtime = make_runtime(tmp_path, mock)
    asyncio.run(runtime.prompt("first"))
    assert list(runtime.messages) == active_path_messages(tmp_path / "session.jsonl")
    runtime.writer.append_message(UserMessage(content="added by a command", timestamp=0))
    asyncio.run(runtime.prompt("second"))
    assert list(runtime.messages) == active_path_messages(tmp_path / "session.jsonl")
    assert "added by a command" in [m.content for m in runtime.messages]


def test_the_session_declares_the_prompt_and_tools_once_before_the_first_users_message(
        tmp_path) -> None:
    mock = MockModel([turn(text("one")), turn(text("two"))])
    runtime = make_runtime(tmp_path, mock)
    asyncio.run(runtime.prompt("first"))
    asyncio.run(runtime.prompt("second"))
    stored = session_messages(tmp_path / "session.jsonl")
    assert [m["role"] for m in stored] == ["system", "user", "assistant", "user", "assistant"]
    declared, resources = stored[0], runtime.assembly.resources
    assert declared["content"] == "" and declared["sections"] == resources.sections
    assert [tool["name"] for tool in declared["toolsAdded"]] == ["read", "bash", "edit", "write"]
    assert [r["systemPrompt"] for r in mock.requests] == [resources.system_prompt] * 2
    assert [t["name"] for t in mock.requests[1]["tools"]] == ["read", "bash", "edit", "write"]


def test_a_resumed_session_declares_only_the_sections_and_tools_that_changed(tmp_path) -> None:
    from pi.coding_agent.tools.sets import coding_tools
    from pi.coding_agent.tools.workspace import Workspace

    asyncio.run(make_runtime(tmp_path, MockModel([turn(text("one"))])).prompt("a"))
    (tmp_path / "AGENTS.md").write_text("Use tabs.")
    read_only = [t for t in coding_tools(Workspace(tmp_path)) if t.name == "read"]
    mock = MockModel([turn(text("two"))])
    asyncio.run(make_runtime(tmp_path, mock, tools=read_only).prompt("b"))
    delta = session_messages(tmp_path / "session.jsonl")[3]
    assert delta["role"] == "system" and list(delta["sections"]) == ["project_context"]
    assert [t["name"] for t in delta["toolsRemoved"]] == ["bash", "edit", "write"]
    assert "toolsAdded" not in delta, "read was declared before and has not changed"
    assert "Use tabs." in mock.requests[0]["systemPrompt"]
    assert [t["name"] for t in mock.requests[0]["tools"]] == ["read"]


def test_a_transient_error_is_retried_after_two_seconds_and_both_replies_are_kept(tmp_path) -> None:
    waits: list[int] = []
    mock = MockModel([fail("rate_limit"), turn(text("second time lucky"))])
    runtime = make_runtime(tmp_path, mock, waits=waits)
    events: list[str] = []
    runtime.subscribe(lambda e: events.append(e.type))
    asyncio.run(runtime.prompt("hi"))
    assert waits == [2000]
    assert events.count("auto_retry_start") == 1 and events.count("auto_retry_end") == 1
    stored = session_messages(tmp_path / "session.jsonl")
    assert [m.get("stopReason") for m in stored] == [None, None, "error", "stop"]


def test_retries_stop_after_three_attempts_with_growing_waits(tmp_path) -> None:
    waits: list[int] = []
    mock = MockModel([fail("server_error") for _ in range(4)])
    runtime = make_runtime(tmp_path, mock, waits=waits)
    ends: list = []
    runtime.subscribe(lambda e: ends.append(e) if e.type == "auto_retry_end" else None)
    asyncio.run(runtime.prompt("hi"))
    assert waits == [2000, 4000, 8000] and len(mock.requests) == 4
    assert ends[-1].success is False and "500" in ends[-1].final_error


def test_an_error_that_merely_contains_5000_is_not_retried(tmp_path) -> None:
    mock = MockModel([fail("server_error", message="invalid max_tokens: 5000 is too large")])
    waits: list[int] = []
    runtime = make_runtime(tmp_path, mock, waits=waits)
    asyncio.run(runtime.prompt("hi"))
    assert waits == [] and len(mock.requests) == 1


def test_a_context_overflow_is_compacted_once_and_the_run_continues(tmp_path) -> None:
    mock = MockModel([turn(text("early answer " * 50)), fail("context_overflow"),
                      turn(text("## Goal\nkeep going")), turn(text("done after compaction"))])
    runtime = make_runtime(tmp_path, mock, compaction=CompactionSettings(keep_recent_tokens=50))
    asyncio.run(runtime.prompt("first question"))
    asyncio.run(runtime.prompt("second question"))
    entries = [json.loads(line)["type"] for line in
               (tmp_path / "session.jsonl").read_text().splitlines()]
    assert entries.count("compaction") == 1
    last = runtime.messages[-1]
    assert isinstance(last, AssistantMessage) and last.content[0].text == "done after compaction"
    assert [m.role for m in runtime.messages[:2]] == ["system", "compactionSummary"]


def test_a_long_run_is_compacted_before_its_next_turn(tmp_path) -> None:
    mock = MockModel([
        turn(text("Hello.")),  # an early exchange: Pi 1.6 compacts only what it can summarise
        turn(text("Noted.")),
        turn(text("## Goal\nremember the early context")),  # before the prompt (Pi's first point)
        turn(text("Listing."), tool_call("ls", {"path": "."})),
        turn(text("## Goal\nlist the folder")),  # the summary request, between the two turns
        turn(text("finished")),
    ])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))  # about 3,000 tokens of early context
    runtime.compaction = replace(runtime.compaction, enabled=True)
    events: list[str] = []
    runtime.subscribe(lambda e: events.append(e.type))
    asyncio.run(runtime.prompt("please list the folder " + "y" * 400))
    turn_starts = [i for i, kind in enumerate(events) if kind == "turn_start"]
    assert len(turn_starts) == 2, f"expected two turns (the second after a tool call): {events}"
    between = events[events.index("turn_end"):turn_starts[1]]
    assert between == ["turn_end", "compaction_start", "compaction_end"]
    assert "<conversation>" in mock.requests[4]["messages"][0]["content"][0]["text"]
    resumed = mock.requests[5]["messages"]
    assert "<summary>\n## Goal\nlist the folder" in resumed[0]["content"][0]["text"]
    assert [m["role"] for m in resumed] == ["user", "user", "assistant", "toolResult"]
    assert [m.role for m in runtime.messages[:2]] == ["system", "compactionSummary"]
    assert runtime.messages[-1].content[0].text == "finished"
    kinds = [json.loads(line)["type"] for line in
             (tmp_path / "session.jsonl").read_text().splitlines()]
    assert kinds.count("message") == 9, "nothing recorded was removed"
    assert kinds.count("compaction") == 2


def test_a_runtime_resumes_a_session_at_a_chosen_leaf(tmp_path) -> None:
    first = make_runtime(tmp_path, MockModel([turn(text("one")), turn(text("two"))]))
    asyncio.run(first.prompt("a"))
    leaf = read_session(tmp_path / "session.jsonl").tree.leaf_on_load
    asyncio.run(first.prompt("b"))
    asyncio.run(first.close())
    again = make_runtime(tmp_path, MockModel([turn(text("branch"))]), leaf_id=leaf)
    assert [m.role for m in again.messages] == ["system", "user", "assistant"]
    asyncio.run(again.prompt("c"))
    loaded = read_session(tmp_path / "session.jsonl")
    assert [m.content for m in active_path_messages(tmp_path / "session.jsonl")
            if m.role == "user"] == ["a", "c"]
    assert len(loaded.tree.children(leaf)) == 2, "b and c are siblings on two branches"


def test_a_resumed_session_never_sends_a_message_a_context_edit_omitted(tmp_path) -> None:
    first = make_runtime(tmp_path, MockModel([turn(text("noted"))]))
    asyncio.run(first.prompt("my password is hunter2"))
    secret = next(e.id for e in first.writer.tree.entries
                  if e.type == "message" and e.message.role == "user")
    first.writer.append_context_edit(secret, None)
    asyncio.run(first.close())
    mock = MockModel([turn(text("fine"))])
    again = make_runtime(tmp_path, mock)
    asyncio.run(again.prompt("go on"))
    sent = mock.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["assistant", "user"]
    assert "hunter2" not in str(sent)


def test_tool_calls_and_results_stay_paired_in_the_session(tmp_path) -> None:
    mock = MockModel([turn(tool_call("ls", {"path": "."})), turn(text("ok"))])
    runtime = make_runtime(tmp_path, mock)
    asyncio.run(runtime.prompt("look"))
    stored = session_messages(tmp_path / "session.jsonl")
    calls = [b["id"] for m in stored if m["role"] == "assistant" for b in m["content"]
             if b["type"] == "toolCall"]
    assert calls == [m["toolCallId"] for m in stored if m["role"] == "toolResult"]


def test_the_turn_limit_and_the_context_ceiling_are_the_callers_to_set(tmp_path) -> None:
    (tmp_path / "AGENTS.md").write_text("Outside the project: never read.")
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Inside the project.")
    mock = MockModel([turn(tool_call("ls", {"path": "."})) for _ in range(3)])
    runtime = make_runtime(tmp_path, mock, cwd=project, max_turns=2, context_ceiling=project)
    asyncio.run(runtime.prompt("loop"))
    assert len(mock.requests) == 2
    prompt = mock.requests[0]["systemPrompt"]
    assert "Inside the project." in prompt and "Outside the project" not in prompt


EXTENSION = """
from pathlib import Path

from pi.coding_agent.extensions.api import AgentStartChange, InputChange, InputHandled
from pi.ai import UserMessage

LOG = Path(__file__).with_name("seen.txt")


def seen(line):
    with LOG.open("a") as log:
        log.write(f"{line}\\n")


def extension(api):
    def on_input(event):
        if event.text == "ping":
            return InputHandled()
        return InputChange(event.text.replace("please", "kindly"))

    def on_start(event):
        note = UserMessage(content="(house rules apply)", timestamp=0)
        return AgentStartChange(system_prompt=event.system_prompt + " Be terse.", messages=(note,))

    api.on("input", on_input)
    api.on("before_agent_start", on_start)
    api.on("agent_end", lambda event: seen(f"agent_end {len(event.messages)}"))
    api.register_command("hello", "say hello", lambda args: seen(f"hello {args}"))
"""


def test_extensions_see_the_input_the_start_and_the_end_of_every_run(tmp_path) -> None:
    (tmp_path / "rules.py").write_text(EXTENSION)
    mock = MockModel([turn(text("done"))])
    runtime = make_runtime(tmp_path, mock, extension_paths=(tmp_path / "rules.py",))
    asyncio.run(runtime.prompt("/hello world"))
    asyncio.run(runtime.prompt("ping"))
    assert mock.requests == [], "a command and a handled input never reach the model"
    asyncio.run(runtime.prompt("please fix it"))
    request = mock.requests[0]
    assert request["systemPrompt"].endswith("Be terse.")
    assert [m["content"] for m in request["messages"]] == ["kindly fix it", "(house rules apply)"]
    log = (tmp_path / "seen.txt").read_text().splitlines()
    assert log == ["hello world", "agent_end 3"], "the command ran; agent_end saw all 3 messages"
    stored = session_messages(tmp_path / "session.jsonl")
    assert "Be terse." not in json.dumps(stored), "an extension's prompt is sent, never recorded"
    assert list(runtime.messages) == active_path_messages(tmp_path / "session.jsonl")


def test_each_prompt_starts_from_the_base_system_prompt_so_additions_never_pile_up(
        tmp_path) -> None:
    (tmp_path / "rules.py").write_text(EXTENSION)
    mock = MockModel([turn(text("one")), turn(text("two"))])
    runtime = make_runtime(tmp_path, mock, extension_paths=(tmp_path / "rules.py",))
    asyncio.run(runtime.prompt("please fix it"))
    asyncio.run(runtime.prompt("please fix it again"))
    first, second = (request["systemPrompt"] for request in mock.requests)
    assert first.count("Be terse.") == 1, "the extension's system prompt reaches the model once"
    assert second == first, "the next prompt starts from the base system prompt again"


def test_an_extensions_one_run_prompt_is_dropped_even_when_the_run_is_cancelled(
        tmp_path) -> None:
    (tmp_path / "rules.py").write_text(EXTENSION)
    mock = MockModel([turn(text("never finished"), delay_ms=60_000)])
    runtime = make_runtime(tmp_path, mock, extension_paths=(tmp_path / "rules.py",))

    async def cancel_mid_run() -> None:
        run = asyncio.create_task(runtime.prompt("please fix it"))
        for _ in range(1_000):  # until the extension's prompt is this run's
            if runtime.forced_prompt is not None:
                break
            await asyncio.sleep(0)
        assert runtime.forced_prompt is not None
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(cancel_mid_run())
    assert runtime.forced_prompt is None
    assert list(runtime.messages) == active_path_messages(tmp_path / "session.jsonl")


SLOW_END = """
import asyncio
from pathlib import Path


def extension(api):
    async def on_end(event):
        for _ in range(5):
            await asyncio.sleep(0)
        Path(__file__).with_name("ended.txt").write_text("done")

    api.on("agent_end", on_end)
"""


def test_a_prompt_returns_only_after_the_extension_handlers_of_its_run_finished(
        tmp_path) -> None:
    (tmp_path / "slow.py").write_text(SLOW_END)
    runtime = make_runtime(tmp_path, MockModel([turn(text("done"))]),
                           extension_paths=(tmp_path / "slow.py",))

    async def prompt_then_look() -> bool:
        await runtime.prompt("hi")
        return (tmp_path / "ended.txt").exists()

    assert asyncio.run(prompt_then_look())


def test_an_image_for_a_model_that_takes_none_is_refused_before_anything_is_sent(
        tmp_path) -> None:
    mock = MockModel([turn(text("I see"))])
    runtime = make_runtime(tmp_path, mock)
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    with pytest.raises(ValueError, match="does not accept images"):
        asyncio.run(runtime.prompt("look", images=(image,)))
    assert mock.requests == [] and runtime.messages == ()


INPUT_SEEN = """
from pathlib import Path


def extension(api):
    api.on("input", lambda event: Path(__file__).with_name("seen.txt").write_text(event.text))
"""


def test_an_image_the_model_cannot_take_is_refused_before_any_extension_sees_the_input(
        tmp_path) -> None:
    (tmp_path / "seen.py").write_text(INPUT_SEEN)
    runtime = make_runtime(tmp_path, MockModel([]), extension_paths=(tmp_path / "seen.py",))
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    with pytest.raises(ValueError, match="does not accept images"):
        asyncio.run(runtime.prompt("look", images=(image,)))
    assert not (tmp_path / "seen.txt").exists()


def test_a_prompt_template_is_expanded_before_the_model_reads_the_prompt(tmp_path) -> None:
    (tmp_path / "agent" / "prompts").mkdir(parents=True)
    (tmp_path / "agent" / "prompts" / "review.md").write_text("Review $1 for speed.")
    mock = MockModel([turn(text("reviewed"))])
    asyncio.run(make_runtime(tmp_path, mock).prompt("/review app.py"))
    assert [m["content"] for m in mock.requests[0]["messages"]] == ["Review app.py for speed."]


def test_with_auto_compaction_off_a_prompt_over_the_threshold_is_sent_as_it_is(tmp_path) -> None:
    mock = MockModel([turn(text("Hello.")), turn(text("Noted.")), turn(text("Still here."))])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))  # an early exchange a compaction could summarise
    asyncio.run(runtime.prompt("x" * 12_000))  # about 3,000 tokens: over the threshold
    asyncio.run(runtime.prompt("and now?"))
    kinds = [json.loads(line)["type"] for line in
             (tmp_path / "session.jsonl").read_text().splitlines()]
    assert "compaction" not in kinds and len(mock.requests) == 3
    assert runtime.messages[-1].content[0].text == "Still here."


TWO_NOTES = """
from pi.ai import UserMessage
from pi.coding_agent.extensions.api import AgentStartChange


def extension(api):
    notes = tuple(UserMessage(content=f"note {n}", timestamp=0) for n in (1, 2))
    api.on("before_agent_start", lambda event: AgentStartChange(messages=notes))
"""


def test_every_message_an_extension_adds_goes_with_the_prompt_in_one_request(tmp_path) -> None:
    (tmp_path / "notes.py").write_text(TWO_NOTES)
    mock = MockModel([turn(text("ok")), turn(text("never asked"))])
    runtime = make_runtime(tmp_path, mock, extension_paths=(tmp_path / "notes.py",))
    asyncio.run(runtime.prompt("hi"))
    assert [[m["content"] for m in r["messages"]] for r in mock.requests] == [
        ["hi", "note 1", "note 2"]], "as Pi passes them: one batch, one request"


def test_a_failed_summary_between_turns_records_nothing_and_the_run_goes_on(tmp_path) -> None:
    mock = MockModel([
        turn(text("Hello.")),  # an early exchange: Pi 1.6 compacts only what it can summarise
        turn(text("Noted.")),
        turn(text("## Goal\nremember the early context")),  # before the prompt: succeeds
        turn(text("Listing."), tool_call("ls", {"path": "."})),
        fail("server_error"),  # the summary request between the turns fails
        turn(text("finished anyway")),
    ])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=100)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings, auto_retry=False)
    runtime.compaction = replace(runtime.compaction, enabled=False)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    runtime.compaction = replace(runtime.compaction, enabled=True)
    ends: list = []
    runtime.subscribe(lambda e: ends.append(e) if e.type == "compaction_end" else None)
    asyncio.run(runtime.prompt("please list the folder " + "y" * 400))
    assert [e.entry is not None for e in ends[:2]] == [True, False]
    assert ends[1].error_message == ("Auto-compaction failed: Summarization failed: 500 internal "
                                     "server error: the mock provider failed to produce a reply")
    kinds = [json.loads(line)["type"] for line in
             (tmp_path / "session.jsonl").read_text().splitlines()]
    assert kinds.count("compaction") == 1, "the failed summary wrote nothing"
    before = mock.requests[3]["messages"]
    assert mock.requests[5]["messages"][: len(before)] == before, "the context was kept"
    assert runtime.messages[-1].content[0].text == "finished anyway"


def test_a_kept_reply_from_before_a_compaction_does_not_start_another(tmp_path) -> None:
    # Pi's _checkCompaction skips a reply older than the latest compaction: its usage
    # measured the context before the summary. Counting it would start a second compaction
    # at once, which fails with "Already compacted".
    mock = MockModel([
        turn(text("hi")),
        turn(text("big answer"), usage={"input": 2_800}),  # over 3000 - 500 = 2500
        turn(text("## Goal\nsummarised")),  # the threshold compaction after the run
        turn(text("small answer")),
    ])
    settings = CompactionSettings(reserve_tokens=500, keep_recent_tokens=5)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    asyncio.run(runtime.prompt("hi"))  # something before "first" for the summary
    starts: list[str] = []
    runtime.subscribe(lambda e: starts.append(e.reason) if e.type == "compaction_start"
                      else None)
    asyncio.run(runtime.prompt("first"))
    assert starts == ["threshold"]
    assert [m.role for m in runtime.messages] == ["system", "compactionSummary", "user",
                                                  "assistant"]
    asyncio.run(runtime.prompt("second"))
    assert starts == ["threshold"], "the kept reply's old usage started no second compaction"
    assert runtime.messages[-1].content[0].text == "small answer"


def test_a_compaction_records_what_its_summary_cost_and_that_no_extension_wrote_it(
        tmp_path) -> None:
    mock = MockModel([turn(text("Hello.")), turn(text("Noted.")), turn(text("## Goal\ngo on"))])
    settings = CompactionSettings(enabled=False, reserve_tokens=500, keep_recent_tokens=100)
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    assert isinstance(asyncio.run(runtime.compact()), CompactionEntry)
    lines = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    entry = next(line for line in lines if line["type"] == "compaction")
    assert entry["fromHook"] is False  # Pi 1.6's appendCompaction(…, fromExtension=false, usage)
    assert entry["usage"]["totalTokens"] > 0 and entry["usage"]["output"] > 0


def test_an_automatic_compaction_with_nothing_to_summarise_is_quiet_and_a_manual_one_says_why(
        tmp_path) -> None:
    mock = MockModel([turn(text("Hello.")), turn(text("Noted.")), turn(text("Still here."))])
    settings = CompactionSettings(reserve_tokens=500)  # over the threshold, all of it kept
    runtime = make_runtime(tmp_path, mock, window=3000, compaction=settings)
    events: list[str] = []
    runtime.subscribe(lambda e: events.append(e.type))
    asyncio.run(runtime.prompt("hello"))
    asyncio.run(runtime.prompt("x" * 12_000))
    asyncio.run(runtime.prompt("and now?"))
    assert "compaction_start" not in events  # Pi's _runAutoCompaction returns before starting
    events.clear()
    assert asyncio.run(runtime.compact()) == "Nothing to compact (session too small)"
    assert events == ["compaction_start", "compaction_end"]
