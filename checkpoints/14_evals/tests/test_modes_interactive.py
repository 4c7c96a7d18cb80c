"""The interactive mode streams a run, shows its tools and runs the slash commands."""

import asyncio
import io
import json
import os
import shutil
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mock_model import MockModel, load_script, text, turn
from pi.agent import MessageUpdate
from pi.ai import MockProvider, Model, Providers, builtin_models
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.modes.interactive import (
    HINT,
    PREVIEW_LINES,
    PREVIEW_WIDTH,
    earlier_prompts,
    edited_lines,
    result_preview,
    run_interactive,
)
from pi.modes.main import app

STEP = 13


def make_runtime(tmp_path: Path, data_dir: Path, mock: MockModel | None = None,
                 keep: int = 20_000) -> Runtime:
    workspace = tmp_path / "work"
    shutil.copytree(data_dir / "workspaces" / "greeting", workspace)
    mock = mock or MockModel(load_script(data_dir / "scripts" / "interactive-demo.yaml"))
    return Runtime(RuntimeConfig(
        cwd=workspace, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock"),
        clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
        session_file=tmp_path / "session.jsonl", agent_dir=tmp_path / "agent",
        sessions_dir=tmp_path / "sessions", compaction=CompactionSettings(keep_recent_tokens=keep),
        system_prompt="You are a test agent."))


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=100, no_color=True, force_terminal=False), out


def drive(runtime: Runtime, *lines: str) -> str:
    screen, out = console()
    asyncio.run(run_interactive(runtime, screen, iter(lines)))
    return out.getvalue()


def lines_after(output: str, command: str) -> list[str]:
    """The lines a command printed, up to the next prompt."""
    after = output.split(f"> {command}\n", 1)[1].removesuffix("bye\n")
    return after.split("\n> ", 1)[0].splitlines()


def test_reply_text_is_printed_while_it_streams(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir)
    screen, out = console()
    seen: list[str] = []
    runtime.subscribe(lambda e: seen.append(out.getvalue()) if isinstance(e, MessageUpdate)
                      and e.event.type == "text_delta" else None)
    asyncio.run(run_interactive(runtime, screen, iter(["read the greeting"])))
    partial = [s for s in seen if "Let me" in s and "Let me read the greeting file" not in s]
    assert partial, "part of the reply was on screen before the rest had arrived"
    assert "Let me read the greeting file first.\n" in out.getvalue()
    assert "The file says: Hello from the fixture workspace! Anything else?\n" in out.getvalue()


def test_each_tool_call_gets_a_start_line_an_outcome_line_and_a_result_preview(
        tmp_path, data_dir) -> None:
    output = drive(make_runtime(tmp_path, data_dir), "read the greeting")
    assert "→ read path=greeting.txt\n✓ read ok\n  Hello from the fixture workspace!\n" in output


def test_a_long_tool_result_is_previewed_by_its_first_lines_and_a_marker() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 11)) + "\n" + "x" * 300
    preview = result_preview(text)
    assert preview[:PREVIEW_LINES] == [f"line {n}" for n in range(1, PREVIEW_LINES + 1)]
    assert preview[-1] == f"… {11 - PREVIEW_LINES} more lines"
    assert result_preview("y" * 300) == ["y" * (PREVIEW_WIDTH - 1) + "…"]
    assert result_preview("a\nb\n") == ["a", "b"] and result_preview("") == []


def editor(tmp_path: Path, *prompts: str, said: list[str] | None = None,
           earlier: tuple[str, ...] | list[str] = ()) -> list[str | None]:
    """What the line editor returns at each prompt for the keys typed there (into a pipe)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    async def read_all() -> list[str | None]:
        with create_pipe_input() as keyboard:
            session: PromptSession[str] = PromptSession(input=keyboard, output=DummyOutput(),
                                                        history=InMemoryHistory())
            reader = edited_lines(earlier,
                                  lambda: (said if said is not None else []).append("^C"),
                                  session)
            lines: list[str | None] = []
            for keys in prompts:
                keyboard.send_text(keys)
                lines.append(await anext(reader, None))
            return lines

    return asyncio.run(read_all())


UP, HOME, CTRL_C, CTRL_D = "\x1b[A", "\x1b[H", "\x03", "\x04"


def test_up_recalls_the_previous_prompt_and_the_line_can_be_edited(tmp_path) -> None:
    lines = editor(tmp_path, "read the greeting\r", "tree\r", UP + UP + "\r",
                   "ession" + HOME + "/s\r", CTRL_D)
    assert lines == ["read the greeting", "tree", "read the greeting", "/session", None]


def test_up_starts_from_the_prompts_of_the_session_being_continued(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir, MockModel([turn(text("one")), turn(text("two"))]))
    drive(runtime, "first", "second")
    assert earlier_prompts(runtime) == ["first", "second"]
    assert editor(tmp_path, UP + UP + "\r", earlier=earlier_prompts(runtime)) == ["first"]


def test_ctrl_c_at_the_prompt_only_says_how_to_leave(tmp_path) -> None:
    said: list[str] = []
    assert editor(tmp_path, "half a thought" + CTRL_C + "next\r", said=said) == ["next"]
    assert said == ["^C"]


def test_compact_prints_the_tokens_before_and_the_new_entry(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir, keep=1)  # Pi 1.6 summarises only what it cuts
    output = drive(runtime, "read the greeting", "/compact", "and now?")
    [said] = lines_after(output, "/compact")
    compaction = read_session(tmp_path / "session.jsonl").entries[-3]
    assert compaction.type == "compaction"
    assert said == f"compacted: {compaction.tokens_before} tokens before, new entry {compaction.id}"
    assert "Still here after the compaction" in output


def test_compact_with_nothing_to_summarise_says_why_and_asks_no_model(tmp_path, data_dir) -> None:
    mock = MockModel([])
    output = drive(make_runtime(tmp_path, data_dir, mock), "/compact")
    assert lines_after(output, "/compact") == [
        "nothing compacted: Nothing to compact (session too small)"]
    assert mock.requests == []


def test_export_writes_a_self_contained_html_transcript(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir)
    output = drive(runtime, "read <the> greeting", "/export transcript.html")
    page = (runtime.config.cwd / "transcript.html").read_text(encoding="utf-8")
    assert f"exported the current branch to {runtime.config.cwd / 'transcript.html'}" in output
    assert page.startswith("<!DOCTYPE html>") and "read &lt;the&gt; greeting" in page
    assert "Hello from the fixture workspace!" in page and "greeting.txt" in page
    assert "<script" not in page


def test_export_to_a_file_that_cannot_be_written_is_one_line(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir)
    (runtime.config.cwd / "taken").write_text("a file, not a folder")
    output = drive(runtime, "/export taken/page.html")
    [said] = lines_after(output, "/export taken/page.html")
    assert said.startswith(f"/export: {runtime.config.cwd / 'taken'}: ")


def test_fork_lists_the_user_messages_and_forks_before_the_chosen_one(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir, MockModel([turn(text("one")), turn(text("two"))]))
    screen, out = console()
    current = asyncio.run(run_interactive(runtime, screen, iter(["first", "second", "/fork"])))
    users = [e.id for e in current.writer.tree.entries
             if e.type == "message" and e.message.role == "user"]
    assert lines_after(out.getvalue(), "/fork") == [f"{users[0]}  first", f"{users[1]}  second"]
    current = asyncio.run(run_interactive(current, screen, iter([f"/fork {users[1]}"])))
    said = lines_after(out.getvalue(), f"/fork {users[1]}")
    assert said == [f"forked to {current.writer.path}; the message was: second"]
    header = json.loads(current.writer.path.read_text().splitlines()[0])
    assert header["parentSession"] == str(tmp_path / "session.jsonl")
    assert [m.content for m in current.messages if m.role == "user"] == ["first"]


def test_new_starts_an_empty_session_and_the_next_prompt_goes_there(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir, MockModel([turn(text("one")), turn(text("two"))]))
    current = asyncio.run(run_interactive(runtime, console()[0], iter(["first", "/new", "second"])))
    assert current.writer.path.is_relative_to(tmp_path / "sessions")
    assert [m.content for m in current.messages if m.role == "user"] == ["second"]
    assert [m.content for m in runtime.messages if m.role == "user"] == ["first"]


def test_model_switches_only_to_an_available_model(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir)
    other = builtin_models(env={})["openai/gpt-5.4-mini"]
    runtime.config = replace(runtime.config, models=(runtime.config.model, other))
    output = drive(runtime, "/model", "/model nowhere/none", "/model openai/gpt-5.4-mini")
    assert lines_after(output, "/model")[0].startswith("model mock/mock-1")
    assert lines_after(output, "/model nowhere/none") == [
        "/model: nowhere/none is not available (mock/mock-1, openai/gpt-5.4-mini)"]
    assert runtime.agent.config.model.id == "gpt-5.4-mini"
    assert runtime.writer.tree.entries[-1].type == "model_change"


def test_an_unknown_command_is_one_line_and_reaches_no_model(tmp_path, data_dir) -> None:
    mock = MockModel([])
    output = drive(make_runtime(tmp_path, data_dir, mock), "/frobnicate now")
    said = lines_after(output, "/frobnicate now")
    assert said == [f"unknown command /frobnicate ({HINT})"]
    assert mock.requests == []


def test_a_skill_command_goes_to_the_runtime_which_expands_it(tmp_path, data_dir) -> None:
    skill = tmp_path / "agent" / "skills" / "greet" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: Greets.\n---\nSay hello nicely.\n")
    mock = MockModel([turn(text("Hello!"))])
    drive(make_runtime(tmp_path, data_dir, mock), "/skill:greet the team")
    sent = mock.requests[0]["messages"][-1]["content"]
    assert sent.startswith('<skill name="greet"') and sent.endswith("the team")


def test_end_of_input_and_quit_both_leave(tmp_path, data_dir) -> None:
    mock = MockModel([])
    assert drive(make_runtime(tmp_path, data_dir, mock)).endswith("bye\n")
    output = drive(make_runtime(tmp_path / "b", data_dir, mock), "/quit", "never sent")
    assert output.endswith("bye\n") and mock.requests == []


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_during_a_run_aborts_it(tmp_path, data_dir) -> None:
    runtime = make_runtime(tmp_path, data_dir)
    fired: list[bool] = []

    def press_ctrl_c(event: object) -> None:
        if isinstance(event, MessageUpdate) and event.event.type == "text_delta" and not fired:
            fired.append(True)
            os.kill(os.getpid(), signal.SIGINT)

    runtime.subscribe(press_ctrl_c)
    output = drive(runtime, "read the greeting")
    assert "aborting the run; 0 queued message(s) handed back" in output
    assert "(aborted)" in output and "→ read" not in output
    assert runtime.messages[-1].stop_reason == "aborted"


def test_escape_sequences_from_a_model_or_a_file_reach_the_terminal_escaped(tmp_path, data_dir):
    title, clipboard = "\x1b]0;pwned\x07", "\x1b]52;c;cm0gLXJmIH4=\x07"
    mock = MockModel([turn(text(f"line one{title}\nline two{clipboard}"))])
    runtime = make_runtime(tmp_path, data_dir, mock)
    runtime.assembly = replace(runtime.assembly, diagnostics=(f"skills/x{title}: a warning",))
    shown = drive(runtime, "hello")
    assert "\x1b" not in shown and "\x07" not in shown
    assert "line one\\x1b]0;pwned\\x07\nline two\\x1b]52;c;cm0gLXJmIH4=\\x07" in shown
    assert "skills/x\\x1b]0;pwned\\x07: a warning" in shown


def test_each_load_warning_is_shown_once_in_interactive_mode(tmp_path) -> None:
    skill = tmp_path / "agent" / "skills" / "bad" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: bad\n---\nNo description.\n")
    result = CliRunner().invoke(app, ["--cwd", str(tmp_path), "--agent-dir",
                                      str(tmp_path / "agent"), "--session",
                                      str(tmp_path / "s.jsonl")], input="/quit\n",
                                env={"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"})
    shown = result.stdout + result.stderr
    assert result.exit_code == 0, shown
    assert shown.count(f"{skill}: description is required") == 1, shown
