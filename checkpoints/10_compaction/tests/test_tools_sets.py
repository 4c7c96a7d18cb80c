"""One factory builds the seven tools; Pi's default set picks from it."""

from pi.coding_agent import Workspace, coding_tools, default_tools

STEP = 7


def test_the_factory_builds_all_seven_tools_on_one_workspace(tmp_path) -> None:
    workspace = Workspace(tmp_path)
    tools = coding_tools(workspace)
    assert [t.name for t in tools] == ["read", "write", "edit", "bash", "grep", "find", "ls"]
    assert {id(t.workspace) for t in tools} == {id(workspace)}


def test_pis_default_set(tmp_path) -> None:
    workspace = Workspace(tmp_path)
    assert [t.name for t in default_tools(workspace)] == ["read", "bash", "edit", "write"]


def test_every_tool_shows_the_model_camel_case_arguments_and_its_limits(tmp_path) -> None:
    specs = {t.name: t.spec() for t in coding_tools(Workspace(tmp_path))}
    edit_item = specs["edit"].parameters["$defs"]["EditItem"]["properties"]
    assert set(edit_item) == {"oldText", "newText"}
    assert "ignoreCase" in specs["grep"].parameters["properties"]
    for name, limit in [("read", "2000 lines"), ("bash", "2000 lines"), ("grep", "100 matches"),
                        ("find", "1000 results"), ("ls", "500 entries")]:
        assert limit in specs[name].description, name
