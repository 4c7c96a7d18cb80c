"""Tool hooks in the agent loop: block, change, replace, and fail closed."""

import asyncio

from fakes import Tally, work_tool

from mock_model import MockModel, text, tool_call, turn
from pi.agent import LoopConfig, ToolRegistry, run_loop
from pi.agent.tool_calls import ArgumentChange, BlockDecision, ToolHooks
from pi.ai import AbortController, MockProvider, Model, Providers, UserMessage

STEP = 12
MOCK = Model(id="mock-1", api="mock", provider="mock")


def run_with(hooks: ToolHooks | None, *calls, tally: Tally | None = None):
    tally = tally or Tally()
    mock = MockModel([turn(*calls), turn(text("done"))])
    config = LoopConfig(model=MOCK, stream=Providers({"mock": MockProvider(mock)}).stream,
                        tools=ToolRegistry([work_tool(tally)]), tool_hooks=hooks)
    prompt = UserMessage(content="go", timestamp=0)
    result = asyncio.run(run_loop([prompt], [], config, lambda e: None, AbortController().signal))
    return [m for m in result.messages if m.role == "toolResult"], tally


def paired_ids(results) -> list[str]:
    return [r.tool_call_id for r in results]


def first_text(result) -> str:
    return result.content[0].text


def test_a_blocked_call_does_not_run_and_gets_a_paired_error_with_the_reason() -> None:
    async def before(call, context):
        return BlockDecision("not today")

    hooks = ToolHooks(before_tool_call=before)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert paired_ids(results) == ["c1"]
    assert results[0].is_error and first_text(results[0]) == "not today"
    assert tally.log == []


def test_a_block_without_a_reason_says_tool_execution_was_blocked_like_pi() -> None:
    async def before(call, context):
        return BlockDecision()

    results, _ = run_with(ToolHooks(before_tool_call=before), tool_call("work", {"x": 1}))
    assert first_text(results[0]) == "Tool execution was blocked"


def test_the_before_hook_sees_only_valid_calls_with_their_validated_params() -> None:
    seen = []

    async def before(call, context):
        seen.append((call.id, context.tool.name, context.params.x))

    results, _ = run_with(ToolHooks(before_tool_call=before), tool_call("work", {"x": 2}, id="ok"),
                          tool_call("work", {"x": "no"}, id="bad"), tool_call("nope", {}, id="no"))
    assert seen == [("ok", "work", 2)]
    assert [r.is_error for r in results] == [False, True, True]
    assert first_text(results[2]) == "Tool nope not found"


def test_changed_arguments_are_used_and_the_transcript_keeps_the_models_call() -> None:
    async def before(call, context):
        return ArgumentChange({"x": 3})

    hooks = ToolHooks(before_tool_call=before)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert first_text(results[0]) == "work(3) done"
    assert results[0].tool_call_id == "c1" and tally.log == ["start c1", "end c1"]


def test_changed_arguments_are_validated_again_and_never_run_when_invalid() -> None:
    async def before(call, context):
        return ArgumentChange({"x": "three"})

    results, tally = run_with(ToolHooks(before_tool_call=before), tool_call("work", {"x": 1}))
    assert results[0].is_error and "Invalid arguments for tool work" in first_text(results[0])
    assert '"x": "three"' in first_text(results[0]) and tally.log == []


def test_a_before_hook_that_raises_fails_closed_and_is_recorded() -> None:
    async def before(call, context):
        raise RuntimeError("policy server unreachable")

    hooks = ToolHooks(before_tool_call=before)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert tally.log == []
    assert results[0].is_error and paired_ids(results) == ["c1"]
    assert first_text(results[0]) == (
        "Tool call blocked: before_tool_call hook failed: policy server unreachable")
    assert [(f.tool_call_id, f.hook, f.error) for f in hooks.failures] == [
        ("c1", "before_tool_call", "policy server unreachable")]


def test_a_before_hook_that_times_out_fails_closed() -> None:
    async def before(call, context):
        await asyncio.wait_for(asyncio.Event().wait(), 0.001)

    hooks = ToolHooks(before_tool_call=before)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}))
    assert tally.log == [] and results[0].is_error
    assert hooks.failures[0].error == "TimeoutError"


def test_a_before_hook_answering_nonsense_fails_closed() -> None:
    async def before(call, context):
        return True

    hooks = ToolHooks(before_tool_call=before)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}))
    assert tally.log == [] and "returned True" in first_text(results[0])


def test_the_after_hook_may_replace_the_result_of_a_run_call() -> None:
    async def after(call, result):
        return result.model_copy(update={"details": {"checked": True}})

    results, _ = run_with(ToolHooks(after_tool_call=after), tool_call("work", {"x": 1}),
                          tool_call("work", {"x": -1}))
    assert [r.details for r in results] == [{"checked": True}, {"checked": True}]
    assert [r.is_error for r in results] == [False, True]


def test_an_after_hook_that_raises_withholds_the_result() -> None:
    async def after(call, result):
        raise ValueError("redactor crashed")

    hooks = ToolHooks(after_tool_call=after)
    results, tally = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert tally.log == ["start c1", "end c1"]
    assert first_text(results[0]) == (
        "Tool call result withheld: after_tool_call hook failed: redactor crashed")
    assert hooks.failures[0].hook == "after_tool_call"


def test_an_after_hook_cannot_break_the_pairing() -> None:
    async def after(call, result):
        return result.model_copy(update={"tool_call_id": "someone-else"})

    hooks = ToolHooks(after_tool_call=after)
    results, _ = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert paired_ids(results) == ["c1"] and results[0].is_error
    assert len(hooks.failures) == 1


def test_an_invalid_call_is_answered_by_validation_even_when_a_hook_allows_everything() -> None:
    asked: list[str] = []

    async def allow(call, context):
        asked.append(call.id)

    hooks = ToolHooks(before_tool_call=allow)
    results, tally = run_with(hooks, tool_call("work", {"x": "no"}, id="bad"))
    assert first_text(results[0]).startswith("Invalid arguments for tool work:")
    assert asked == [] and hooks.failures == [] and tally.log == []


def test_a_call_whose_changed_arguments_are_invalid_never_reaches_the_after_hook() -> None:
    seen: list[str] = []

    async def before(call, context):
        return ArgumentChange({"x": "three"})

    async def after(call, result):
        seen.append(call.id)

    hooks = ToolHooks(before_tool_call=before, after_tool_call=after)
    results, _ = run_with(hooks, tool_call("work", {"x": 1}, id="c1"))
    assert results[0].is_error and seen == []


def test_an_after_hook_answering_none_keeps_the_tools_result() -> None:
    async def after(call, result):
        return None

    results, _ = run_with(ToolHooks(after_tool_call=after), tool_call("work", {"x": 1}))
    assert first_text(results[0]) == "work(1) done" and not results[0].is_error


def test_a_nonsense_answer_names_the_hook_that_gave_it() -> None:
    async def before(call, context):
        return "yes"

    async def after(call, result):
        return "x" * 500

    blocked = ToolHooks(before_tool_call=before)
    run_with(blocked, tool_call("work", {"x": 1}))
    assert [f.hook for f in blocked.failures] == ["before_tool_call"]
    withheld = ToolHooks(after_tool_call=after)
    results, _ = run_with(withheld, tool_call("work", {"x": 1}))
    assert [f.hook for f in withheld.failures] == ["after_tool_call"]
    assert withheld.failures[0].error == f"returned {'x' * 500!r}"[:200]
    assert first_text(results[0]).startswith("Tool call result withheld: after_tool_call")


def test_without_hooks_the_loop_behaves_as_before() -> None:
    plain, _ = run_with(None, tool_call("work", {"x": 1}, id="c1"))
    empty, _ = run_with(ToolHooks(), tool_call("work", {"x": 1}, id="c1"))
    assert plain == empty
