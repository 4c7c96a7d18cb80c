"""The tool contract: every call ends in exactly one result paired by its id."""

import asyncio

import pytest
from fakes import Tally, work_tool

from pi.agent import ToolRegistry, ToolResult, run_tool_call
from pi.ai import AbortController, ToolCall, ToolResultMessage

STEP = 5


def call(name: str, arguments: dict, id: str = "c1") -> ToolCall:
    return ToolCall(id=id, name=name, arguments=arguments)


def run(registry: ToolRegistry, tool_call: ToolCall, updates: list | None = None):
    def progress(partial: ToolResult) -> None:
        (updates if updates is not None else []).append(partial)

    return asyncio.run(
        run_tool_call(registry, tool_call, AbortController().signal, progress, lambda: 7))


def test_the_model_sees_name_description_and_the_parameters_json_schema() -> None:
    spec = work_tool(Tally()).spec()
    assert spec.name == "work" and "event loop" in spec.description
    assert spec.parameters["properties"] == {"x": {"title": "X", "type": "integer"}}
    assert spec.parameters["required"] == ["x"]


def test_a_registry_refuses_a_second_tool_with_the_same_name() -> None:
    registry = ToolRegistry([work_tool(Tally())])
    with pytest.raises(ValueError, match="already registered"):
        registry.add(work_tool(Tally()))
    assert registry.names() == ("work",)


def test_a_registry_exposes_only_specs_to_the_model() -> None:
    specs = ToolRegistry([work_tool(Tally()), work_tool(Tally(), "other")]).specs()
    assert [s.name for s in specs] == ["work", "other"]
    assert set(specs[0].model_dump()) == {"name", "description", "parameters"}


def test_a_successful_call_is_paired_by_id_with_content_and_details() -> None:
    updates: list = []
    result = run(ToolRegistry([work_tool(Tally())]), call("work", {"x": 2}, "abc"), updates)
    assert isinstance(result, ToolResultMessage)
    assert (result.tool_call_id, result.tool_name, result.is_error) == ("abc", "work", False)
    assert result.content[0].text == "work(2) done" and result.details == {"x": 2}
    assert result.timestamp == 7
    assert [u.content[0].text for u in updates] == ["abc working"]


def test_an_unknown_tool_gets_an_error_result_naming_it() -> None:
    result = run(ToolRegistry(), call("nope", {}))
    assert result.is_error and result.content[0].text == "Tool nope not found"
    assert result.tool_call_id == "c1"


def test_invalid_arguments_are_explained_and_never_executed() -> None:
    tally = Tally()
    result = run(ToolRegistry([work_tool(tally)]), call("work", {"x": "not-a-number"}))
    text = result.content[0].text
    assert result.is_error and text.startswith("Invalid arguments for tool work:")
    assert "  - x: Input should be a valid integer" in text and '"x": "not-a-number"' in text
    assert tally.log == [], "the tool body never ran"


def test_the_validation_error_lists_each_problem_then_the_arguments_as_sorted_json() -> None:
    result = run(ToolRegistry([work_tool(Tally())]), call("work", {"y": [1], "x": "no"}))
    lines = result.content[0].text.split("\n")
    assert lines[0] == "Invalid arguments for tool work:"
    assert lines[1].startswith("  - x: Input should be a valid integer")
    assert lines[2:] == ["", "Received arguments:", "{", '  "x": "no",', '  "y": [', "    1",
                         "  ]", "}"]


def test_an_exception_in_the_tool_becomes_an_error_result_with_its_message() -> None:
    result = run(ToolRegistry([work_tool(Tally())]), call("work", {"x": -1}))
    assert result.is_error and result.content[0].text == "work failed for x=-1"


def test_a_tool_added_later_is_offered_too() -> None:
    registry = ToolRegistry([work_tool(Tally())])
    registry.add(work_tool(Tally(), "other"))
    assert [s.name for s in registry.specs()] == ["work", "other"]
