"""The system prompt and tools live in the transcript: system messages, replayed (Pi 1.6)."""

from pi.ai import Context, Model, SystemMessage, TextContent, Tool, UserMessage
from pi.ai.providers.mock import MockProvider
from pi.ai.transcript import initial_system_message, replay

STEP = 3
READ = Tool(name="read", description="Read a file", parameters={"type": "object"})
LS = Tool(name="ls", description="List a folder", parameters={"type": "object"})
HI = UserMessage(content="Hi", timestamp=1)


def system(content: str = "", **fields: object) -> SystemMessage:
    return SystemMessage.model_validate({"content": content, "timestamp": 0, **fields})


def test_no_prompt_and_no_tools_make_no_system_message() -> None:
    assert initial_system_message(None, ()) is None
    assert initial_system_message("", ()) is None
    first = initial_system_message("Be brief.", (READ,))
    assert first == SystemMessage(content="Be brief.", tools_added=(READ,), timestamp=0)
    assert initial_system_message("Be brief.", ()) == SystemMessage(content="Be brief.",
                                                                     timestamp=0)
    assert initial_system_message(None, (READ,)) == SystemMessage(content="", tools_added=(READ,),
                                                                  timestamp=0)


def test_later_system_text_is_appended_and_sections_are_patched_by_name() -> None:
    messages = [system("Base.", sections={"a": "<a>1</a>", "b": "<b>1</b>"}), HI,
                system("", sections={"a": "<a>2</a>", "b": None}),
                system(content=[TextContent(text="More."), TextContent(text="Still.")],
                       sections={"c": "<c/>"})]
    assert replay(messages).prompt == "Base.\n\nMore.\nStill.\n\n<a>2</a>\n\n<c/>"
    assert replay([HI]).prompt is None


def test_tools_are_added_and_removed_in_transcript_order() -> None:
    messages = [system(toolsAdded=[READ, LS]), HI, system(toolsRemoved=[{"name": "read"}]),
                system(toolsAdded=[READ.model_copy(update={"description": "Read again"})])]
    assert [(t.name, t.description) for t in replay(messages).tools] == [
        ("ls", "List a folder"), ("read", "Read again")]


def test_a_transcript_that_starts_with_the_system_message_sends_the_same_request() -> None:
    model = Model(id="m", api="mock", provider="mock")
    old = Context(system_prompt="Be brief.", tools=(READ,), messages=(HI,))
    new = Context(messages=(initial_system_message("Be brief.", (READ,)), HI))
    assert MockProvider(None).request(model, old) == MockProvider(None).request(model, new)
    later = Context(messages=(*new.messages, system("Later.", toolsRemoved=[{"name": "read"}])))
    body = MockProvider(None).request(model, later)
    assert body["systemPrompt"] == "Be brief.\n\nLater." and "tools" not in body
    assert [m["role"] for m in body["messages"]] == ["user"]
