"""One factory builds Pi's default coding tools on one workspace."""

from pi.coding_agent import Workspace, coding_tools

STEP = 7


def test_the_coding_tools_are_pis_default_four_on_one_workspace(tmp_path) -> None:
    workspace = Workspace(tmp_path)
    tools = coding_tools(workspace)
    assert [t.name for t in tools] == ["read", "bash", "edit", "write"]
    assert {id(t.workspace) for t in tools} == {id(workspace)}


def test_every_tool_shows_the_model_camel_case_arguments_and_its_limits(tmp_path) -> None:
    specs = {t.name: t.spec() for t in coding_tools(Workspace(tmp_path))}
    edit_item = specs["edit"].parameters["$defs"]["EditItem"]["properties"]
    assert set(edit_item) == {"oldText", "newText"}
    for name, limit in [("read", "2000 lines"), ("bash", "2000 lines")]:
        assert limit in specs[name].description, name
