"""Pi's token estimates: UTF-16 characters / 4, per-role rules, usage when reported."""


from pi.ai import (
    AppMessage,
    AssistantMessage,
    Cost,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi.coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
)
from pi.coding_agent.session.tokens import (
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    js_length,
)

STEP = 9
IMAGE = ImageContent(data="AAAA", mime_type="image/png")
ZERO = Cost(input=0, output=0, cache_read=0, cache_write=0, total=0)


def usage(total: int | None, parts: tuple[int, int, int, int] = (0, 0, 0, 0)) -> Usage:
    return Usage(input=parts[0], output=parts[1], cache_read=parts[2], cache_write=parts[3],
                 total_tokens=total, cost=ZERO)


def reply(text: str, total: int, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(content=(TextContent(text=text),), api="a", provider="p", model="m",
                            usage=usage(total), stop_reason=stop, timestamp=0)


def test_characters_are_counted_like_javascript() -> None:
    assert js_length("abc") == 3 and js_length("é") == 1 and js_length("😀") == 2
    assert estimate_tokens(UserMessage(content="😀😀😀", timestamp=0)) == 2  # 6 units → 2
    assert js_length("a😀é\uffff") == 5 and js_length("\U0010ffff") == 2
    assert js_length("\ud83d") == 1  # half an emoji alone is one unit, as in JavaScript
    assert all(type(js_length(text)) is int for text in ("abc", "é", "😀"))  # never 1.0


def test_an_image_counts_1200_tokens_in_every_message_that_can_hold_one() -> None:
    blocks = (TextContent(text="abcd"), IMAGE)
    assert estimate_tokens(UserMessage(content=blocks, timestamp=0)) == 1201  # Pi 0.73: 1
    result = ToolResultMessage(tool_call_id="c", tool_name="read", content=blocks,
                               is_error=False, timestamp=0)
    assert estimate_tokens(result) == 1201
    custom = CustomMessage(custom_type="x", content=blocks, display=True, timestamp=0)
    assert estimate_tokens(custom) == 1201


def test_tool_calls_count_their_name_and_compact_arguments() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "ä.py", "limit": 2})
    message = AssistantMessage(content=(call,), api="a", provider="p", model="m",
                               usage=usage(0), stop_reason="toolUse", timestamp=0)
    assert estimate_tokens(message) == -(-(4 + len('{"path":"ä.py","limit":2}')) // 4)


def test_coding_roles_count_what_pi_counts() -> None:
    bash = BashExecutionMessage(command="ls", output="a b", cancelled=False, truncated=False,
                                exclude_from_context=True, timestamp=0)
    assert estimate_tokens(bash) == 2  # counted even when excluded from the context
    assert estimate_tokens(BranchSummaryMessage(summary="x" * 9, from_id="r", timestamp=0)) == 3
    summary = CompactionSummaryMessage(summary="y" * 8, tokens_before=5, timestamp=0)
    assert estimate_tokens(summary) == 2


def test_a_role_pi_does_not_know_counts_nothing_as_in_pi() -> None:
    assert estimate_tokens(AppMessage(role="bookmark", text="x" * 400)) == 0  # Pi: `return 0`


def test_reported_context_size_prefers_total_tokens() -> None:
    assert calculate_context_tokens(usage(500, (1, 2, 3, 4))) == 500
    assert calculate_context_tokens(usage(0, (1, 2, 3, 4))) == 10
    assert calculate_context_tokens(usage(None, (1, 2, 3, 4))) == 10


def test_the_context_estimate_uses_the_last_normal_reply() -> None:
    user = UserMessage(content="abcdefgh", timestamp=0)  # 2 tokens
    messages = [user, reply("ok", 1000), user, reply("", 9999, "error"), user]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens,
            estimate.last_usage_index) == (1004, 1000, 4, 1)
    alone = estimate_context_tokens([user, user])
    assert (alone.tokens, alone.usage_tokens, alone.last_usage_index) == (4, 0, None)
    after_abort = estimate_context_tokens([user, reply("ok", 1000), reply("", 5000, "aborted")])
    assert (after_abort.tokens, after_abort.last_usage_index) == (1000, 1), "an abort is no usage"


def test_a_reply_that_reports_no_usage_at_all_measured_nothing() -> None:
    user = UserMessage(content="abcdefgh", timestamp=0)  # 2 tokens
    estimate = estimate_context_tokens([user, reply("ok", 1000), user, reply("", 0)])
    assert (estimate.tokens, estimate.last_usage_index) == (1000 + 2 + 0, 1)  # Pi 0.73: 0, 3
    assert estimate_context_tokens([user, reply("", 1)]).last_usage_index == 1


def test_bash_notes_follow_a_blank_line_as_in_pis_bash_execution_to_text() -> None:
    from pi.coding_agent.messages import bash_text

    ran = BashExecutionMessage(command="make", output="boom", exit_code=2, cancelled=False,
                               truncated=True, full_output_path="/tmp/full.log", timestamp=0)
    assert bash_text(ran) == ("Ran `make`\n```\nboom\n```\n\nCommand exited with code 2"
                              "\n\n[Output truncated. Full output: /tmp/full.log]")
    quiet = ran.model_copy(update={"output": "", "cancelled": True, "truncated": False})
    assert bash_text(quiet) == "Ran `make`\n(no output)\n\n(command cancelled)"


def test_a_system_message_counts_its_text_its_sections_and_the_json_of_its_tools() -> None:
    from pi.ai import SystemMessage, Tool

    tool = Tool.model_validate({"name": "ls", "description": "list",
                                "parameters": {"type": "object"}, "label": None})
    message = SystemMessage(content=(TextContent(text="ab"), TextContent(text="cd")),
                            sections={"rules": "12345678", "gone": None, "more": "1234"},
                            tools_added=(tool,), timestamp=0)
    tools = '[{"name":"ls","description":"list","parameters":{"type":"object"},"label":null}]'
    assert estimate_tokens(message) == -(-(4 + 12 + len(tools)) // 4)  # Pi 0.73 had no such role
    assert estimate_tokens(message.model_copy(update={"tools_added": None})) == 4
