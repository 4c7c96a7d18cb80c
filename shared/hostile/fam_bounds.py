"""Generated members of the classes in docs/hostile-input.md's "Bounds", through every reader.

- streams re-split: one reply cut at every byte boundary, and sent in pieces of 1, 2 and
  3 bytes, reads as the same reply (nothing lost, nothing added);
- lone surrogates and halves of a character split across chunks, in text, thinking and
  tool arguments: every reply survives being printed and written as JSON;
- tool-call pieces nobody can put back together end as an error reply, never `toolUse`;
- JSON nested 10 to 100,000 deep in every JSON input: read, or refused in one line;
- YAML alias documents of growing size in every YAML input: refused in one line, quickly;
- a folder, a FIFO, a link loop and an empty file wherever a file belongs: named as what
  they are (or, for the empty file, read as empty), never a traceback or a hang.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile.checks import KEY, as_json, clean_cli, invoke, one_error_line, plain
from hostile.fam_streams import call_piece, delta, judge, run_provider, sse, usage
from hostile.fam_tools import run_call
from hostile.runner import Case, Check

SPLIT_REPLY = sse(
    delta(role="assistant", content="h\u00e9llo \U0001f600 "),
    delta(reasoning_content="th\u00efnk"),
    call_piece(0, '{"path": "a\u00e9', "read", "call_1"), call_piece(0, '.txt"}'),
    delta(finish="tool_calls"), usage())


def pieces_of(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def reply_in_pieces(check: Check, parts: list[bytes], judged: bool = True) -> Any:
    """The reply the OpenAI adapter makes of `parts` sent one after another."""
    import httpx

    async def body() -> Any:
        for part in parts:
            yield part

    events, message = run_provider("openai", lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=body()))
    if judged:
        judge(check, events, message)
    return message


def same_reply(parts: Callable[[], list[bytes]]) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.ai.messages import dump_message
        whole = dump_message(reply_in_pieces(check, [SPLIT_REPLY], judged=False))
        split = dump_message(reply_in_pieces(check, parts()))
        if split != whole:
            check.lost(f"split, the reply differs: {as_json(split)[:200]}")
    return run


SURROGATES: dict[str, bytes] = {
    f"{where}: {what}": sse(*chunks, delta(finish=finish))
    for where, make, finish in (
        ("text", lambda s: delta(content=s), "stop"),
        ("thinking", lambda s: delta(reasoning_content=s), "stop"),
        ("tool arguments", lambda s: call_piece(0, '{"path": "' + s, "read", "c1"), "tool_calls"))
    for what, chunks in (
        ("a lone high half", [make("a\ud800b")]),
        ("a lone low half", [make("a\udc00b")]),
        ("halves in two chunks", [make("x\ud83d"), make("\ude00y")] if where != "tool arguments"
         else [make("x\ud83d"), call_piece(0, '\ude00y"}')]),
        ("a high half last", [make("end\udbff")] if where != "tool arguments"
         else [make("end\udbff"), call_piece(0, '"}')]),
    )
}


def surrogate_case(body: bytes) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.ai.messages import dump_message, json_text
        message = reply_in_pieces(check, [body])
        for text in (json_text(dump_message(message)),
                     json_text(dump_message(message), indent=2, sort_keys=True)):
            text.encode("utf-8")
            if json.loads(text) != json.loads(json_text(dump_message(message))):
                check.lost("the reply's JSON does not read back the same")
    return run


def wire_decode_case(body: bytes) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from course.cli import app
        path = check.root / "reply.sse"
        path.write_bytes(body)
        for args in (["wire", "decode", "--json", str(path)], ["wire", "decode", str(path)]):
            code, out, err, escaped = invoke(app, args)
            clean_cli(check, "python -m course " + " ".join(args[:3]), code, out, err, escaped, (0,))
    return run


def call(index: object, arguments: str, call_id: str | None = None,
         name: str | None = None) -> dict[str, object]:
    piece: dict[str, object] = {"function": {"arguments": arguments}}
    if index is not None:
        piece["index"] = index
    if call_id is not None:
        piece |= {"id": call_id, "type": "function"}
        piece["function"] = {"arguments": arguments, "name": name or "ls"}
    return delta(tool_calls=[piece])


UNASSEMBLABLE: dict[str, bytes] = {
    "another id at the same index": sse(call(0, '{"path": ', "a"), call(0, '"."}', "b"),
                                        delta(finish="tool_calls")),
    "no index while two calls are open": sse(call(0, '{"path": ', "a"), call(1, '{"path": ', "b"),
                                             call(None, '"."}'), delta(finish="tool_calls")),
    "an index that is a string": sse(call("0", "{}", "a"), delta(finish="tool_calls")),
    "an index that is a float": sse(call(0.5, "{}", "a"), delta(finish="tool_calls")),
    "an index that is true": sse(call(True, "{}", "a"), delta(finish="tool_calls")),
    "an index that is null": sse(call(0, '{"path": ', "a"), {"choices": [{"index": 0, "delta": {
        "tool_calls": [{"index": None, "function": {"arguments": '"."}'}}]}}]},
        delta(finish="tool_calls")),
    "pieces swapped between two calls": sse(
        call(0, '{"path": "a"', "a"), call(1, "{}", "b"), call(0, '"}'),
        delta(finish="tool_calls")),
    "a call continued after it ended": sse(call(0, "{}", "a"), delta(content="x"), call(0, "{}"),
                                           delta(finish="tool_calls")),
    "arguments cut short": sse(call(0, '{"path": "a', "a"), delta(finish="tool_calls")),
    "two objects glued in one call": sse(call(0, "{}", "a"), call(0, "{}"),
                                         delta(finish="tool_calls")),
}


def unassemblable_case(body: bytes) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        message = reply_in_pieces(check, [body])
        if message.stop_reason != "error":
            check.crash(f"read as a good reply ({message.stop_reason}), though it cannot be put "
                        "back together")
        elif "\n" in (message.error_message or "").strip():
            check.crash(f"an error of several lines: {message.error_message[:200]!r}")
    return run


DEPTHS = (10, 100, 1_000, 10_000, 100_000)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def refused_or_read(check: Check, where: str, depth: int, action: Callable[[], Any],
                    refusal: type[BaseException] | tuple[type[BaseException], ...]) -> None:
    """Shallow data is read; data deeper than the bound is refused with one line."""
    try:
        action()
    except refusal as error:
        if depth <= 100:
            check.crash(f"{where}: {depth} levels refused: {error}")
        elif "\n" in str(error).strip():
            check.crash(f"{where}: an error of several lines: {str(error)[:200]!r}")
        plain(check, where, [str(error)])
        return
    if depth > 1_000:
        check.crash(f"{where}: {depth} levels read without complaint")


def json_inputs() -> dict[str, Callable[[Check, int], None]]:
    def auth(check: Check, depth: int) -> None:
        from pi.ai.credentials import CredentialError, Credentials
        path = check.root / "auth.json"
        path.write_text('{"openai": ' + nested(depth) + "}")
        path.chmod(0o600)
        refused_or_read(check, "auth.json", depth, lambda: Credentials(path, env={}).load(),
                        CredentialError)

    def rpc_line(check: Check, depth: int) -> None:
        from pi.modes.rpc import CommandError, parse_command
        refused_or_read(check, "an RPC line", depth,
                        lambda: parse_command('{"type": "prompt", "x": ' + nested(depth) + "}"),
                        CommandError)

    def stream_chunk(check: Check, depth: int) -> None:
        chunk = ('data: {"choices": [], "x": ' + nested(depth) + "}\n\n").encode()
        message = reply_in_pieces(check, [chunk + sse(delta(content="x"), delta(finish="stop"))])
        if depth > 1_000 and message.stop_reason != "error":
            check.crash(f"a stream chunk {depth} deep was read")

    def tool_arguments(check: Check, depth: int) -> None:
        message = reply_in_pieces(check, [sse(call(0, '{"x": ' + nested(depth) + "}", "a"),
                                              delta(finish="tool_calls"))])
        if depth > 1_000 and message.stop_reason != "error":
            check.crash(f"tool arguments {depth} deep were read")

    def baseline(check: Check, depth: int) -> None:
        from course.evals.report import BaselineError, load_baseline
        path = check.root / "baseline.json"
        path.write_text('{"version": 1, "x": ' + nested(depth) + "}")
        refused_or_read(check, "an eval baseline", depth, lambda: load_baseline(path),
                        BaselineError)

    def script(check: Check, depth: int) -> None:
        from mock_model import ScriptError, load_script
        path = check.root / "script.json"
        path.write_text('{"turns": [{"parts": [{"toolCall": {"name": "ls", "arguments": {"x": '
                        + nested(depth) + "}}}]}]}")
        refused_or_read(check, "a MockModel script", depth, lambda: load_script(path),
                        ScriptError)

    def request_body(check: Check, depth: int) -> None:
        import asyncio

        from mock_model import MockModel, text, turn
        from mock_model.http.router import respond
        body = ('{"model": "m", "messages": [], "x": ' + nested(depth) + "}").encode()
        reply = asyncio.run(respond(MockModel([turn(text("hi"))]), "POST",
                                    "/v1/chat/completions", body))
        if depth > 1_000 and reply.status < 400:
            check.crash(f"a request body {depth} deep was answered {reply.status}")

    return {"auth.json": auth, "an RPC line": rpc_line, "a stream chunk": stream_chunk,
            "tool arguments": tool_arguments, "an eval baseline": baseline,
            "a MockModel script": script,
            "a MockModel request body": request_body}


def depth_case(read: Callable[[Check, int], None], depth: int) -> Callable[[Check], None]:
    return lambda check: read(check, depth)


def laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def yaml_inputs() -> dict[str, Callable[[Check, int], None]]:
    def script(check: Check, levels: int) -> None:
        from mock_model import ScriptError, load_script
        path = check.root / "script.yaml"
        path.write_text(laughs(levels) + "turns: [{parts: [{text: hi}], usage: *a"
                        f"{levels - 1}}}]\n")
        expect_refusal(check, "a MockModel script", levels, lambda: load_script(path),
                       ScriptError)

    def frontmatter(check: Check, levels: int) -> None:
        from pi.coding_agent.resources.frontmatter import FrontmatterError, parse_yaml_block
        expect_refusal(check, "a skill's front matter", levels,
                       lambda: parse_yaml_block("name: x\ndescription: y\n" + laughs(levels)),
                       FrontmatterError)

    def eval_case(check: Check, levels: int) -> None:
        from course.evals.cases import CaseError, read_yaml
        path = check.root / "case.yaml"
        path.write_text(laughs(levels))
        expect_refusal(check, "an eval case", levels, lambda: read_yaml(path), CaseError)

    return {"a MockModel script": script, "a skill's front matter": frontmatter,
            "an eval case": eval_case}


def expect_refusal(check: Check, where: str, levels: int, action: Callable[[], Any],
                   refusal: type[BaseException]) -> None:
    """9**levels values once expanded: up to a million is read, more is refused."""
    try:
        action()
    except refusal as error:
        if 9 ** levels < 100_000 and "aliases" in str(error):
            check.crash(f"{where}: {9 ** levels:,} values refused as too many")
        plain(check, where, [str(error)])
        return
    if 9 ** levels > 1_000_000:
        check.crash(f"{where}: {9 ** levels:,} values once expanded were read")


def alias_case(read: Callable[[Check, int], None], levels: int) -> Callable[[Check], None]:
    return lambda check: read(check, levels)


KINDS: dict[str, Callable[[Path], None]] = {
    "a folder": lambda path: path.mkdir(),
    "a FIFO": lambda path: os.mkfifo(path),
    "a link loop": lambda path: path.symlink_to(path),
    "an empty file": lambda path: path.write_text(""),
}


def agent_cli(check: Check, *args: str) -> tuple[int, str, str, BaseException | None]:
    from pi.modes.main import app
    script = check.root / "turns.json"
    script.write_text(json.dumps({"turns": [{"text": "ran"}]}))
    (check.root / "work").mkdir(exist_ok=True)
    return invoke(app, ["-p", "hi", "--script", str(script), "--cwd", str(check.root / "work"),
                        "--session", str(check.root / "s.jsonl"),
                        "--agent-dir", str(check.root / "agent"), *args])


def path_inputs() -> dict[str, Callable[[Check, str], None]]:
    def context_file(check: Check, kind: str) -> None:
        work = check.root / "work"
        work.mkdir()
        KINDS[kind](work / "AGENTS.md")
        code, out, err, escaped = agent_cli(check)
        clean_cli(check, "pi-agent -p with AGENTS.md", code, out, err, escaped, (0,))
        if kind != "an empty file" and kind.split()[-1] not in err:
            check.crash(f"AGENTS.md as {kind} is not named as such: {err[:200]!r}")

    def extension(check: Check, kind: str) -> None:
        path = check.root / "ext.py"
        KINDS[kind](path)
        code, out, err, escaped = agent_cli(check, "-e", str(path))
        if kind == "an empty file":
            clean_cli(check, "pi-agent -p -e", code, out, err, escaped, (0, 2), internals=False)
            return
        clean_cli(check, "pi-agent -p -e", code, out, err, escaped, (2,))
        one_error_line(check, "pi-agent -p -e", err, f"is {kind}")

    def script(check: Check, kind: str) -> None:
        from pi.modes.main import app
        path = check.root / "script.yaml"
        KINDS[kind](path)
        code, out, err, escaped = invoke(app, ["-p", "hi", "--script", str(path), "--cwd",
                                               str(check.root), "--agent-dir",
                                               str(check.root / "agent")])
        clean_cli(check, "pi-agent -p --script", code, out, err, escaped, (2,))
        one_error_line(check, "pi-agent -p --script", err, str(path))

    def auth(check: Check, kind: str) -> None:
        agent = check.root / "agent"
        agent.mkdir()
        KINDS[kind](agent / "auth.json")
        from pi.modes.main import app
        code, out, err, escaped = invoke(app, [
            "-p", "hi", "--model", "openai/gpt-h", "--cwd", str(check.root),
            "--agent-dir", str(agent)], env={"OPENAI_API_KEY": None,
                                             "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
        clean_cli(check, "pi-agent -p with auth.json", code, out, err, escaped, (0, 1, 2))
        if kind != "an empty file" and code == 2 and kind.split()[-1] not in err:
            check.crash(f"auth.json as {kind} is not named as such: {err[:200]!r}")

    def skill(check: Check, kind: str) -> None:
        from pi.coding_agent.resources.skills import load_skill_file
        (check.root / "s").mkdir()
        path = check.root / "s" / "SKILL.md"
        KINDS[kind](path)
        loaded, problems = load_skill_file(path, "user")
        if loaded is not None and kind != "an empty file":
            check.crash(f"a SKILL.md that is {kind} loaded")
        plain(check, "a skill's diagnostics", [p.message for p in problems])

    def template(check: Check, kind: str) -> None:
        from pi.coding_agent.resources.prompt_templates import load_template
        path = check.root / "fix.md"
        KINDS[kind](path)
        found = load_template(path, "user")
        plain(check, "a prompt template", [str(getattr(found, "message", ""))])

    def eval_case(check: Check, kind: str) -> None:
        from course.evals.cases import CaseError, load_case
        path = check.root / "case.yaml"
        KINDS[kind](path)
        try:
            load_case(path)
        except CaseError as error:
            plain(check, "an eval case", [str(error)])

    def baseline(check: Check, kind: str) -> None:
        from course.evals.report import BaselineError, load_baseline
        path = check.root / "baseline.json"
        KINDS[kind](path)
        try:
            load_baseline(path)
        except BaselineError as error:
            plain(check, "an eval baseline", [str(error)])
            if kind != "an empty file" and kind.split()[-1] not in str(error):
                check.crash(f"a baseline that is {kind} is not named as such: {error}")

    def step_cli(*command: str) -> Callable[[Check, str], None]:
        def read(check: Check, kind: str) -> None:
            from course.cli import app
            path = check.root / "input.jsonl"
            KINDS[kind](path)
            code, out, err, escaped = invoke(app, [*command, str(path)])
            where = f"python -m course {' '.join(command)}"
            clean_cli(check, where, code, out, err, escaped, (0, 2))
            if kind != "an empty file":
                one_error_line(check, where, err, f"is {kind}")
        return read

    return {"AGENTS.md": context_file, "-e EXTENSION": extension, "--script": script,
            "python -m course protocol": step_cli("protocol"),
            "python -m course wire decode": step_cli("wire", "decode"),
            "auth.json": auth, "SKILL.md": skill, "a prompt template": template,
            "an eval case": eval_case, "an eval baseline": baseline}


TOOL_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "read it": ("read", {"path": "notes.txt"}),
    "edit it": ("edit", {"path": "notes.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
    "write it": ("write", {"path": "notes.txt", "content": "new\n"}),
}


def tool_path_case(name: str, place: str, kind: str) -> Callable[[Check], None]:
    """A coding tool meets `kind` where a file belongs: a tool asked for that very path
    names what it found."""
    def run(check: Check) -> None:
        tool, arguments = TOOL_CALLS[name]
        work = check.root / "work"
        work.mkdir()
        KINDS[kind](work / place)
        message = run_call(check, work, tool, arguments)
        texts = [getattr(block, "text", "") for block in message.content]
        plain(check, f"the {tool} tool", texts)
        named = kind.split()[-1] in texts[0] if texts else False
        if kind != "an empty file" and tool != "write" and not (message.is_error and named):
            check.crash(f"{name} on {kind} does not name it: {''.join(texts)[:200]!r}")
    return run


def path_case(read: Callable[[Check, str], None], kind: str) -> Callable[[Check], None]:
    return lambda check: read(check, kind)


UNREADABLE_VALUES: dict[str, bytes] = {  # parsed fine, then refused: a ValueError each
    "a date that is no day": b"updated: 2024-02-30\n",
    "an integer of 5,000 digits": b"n: " + b"9" * 5_000 + b"\n",
    "bytes that are not UTF-8": b"task: caf\xe9\n",
}


def eval_suite_case(content: bytes) -> Callable[[Check], None]:
    """`python -m course evals run` on a suite whose case Python cannot read: one line."""
    def run(check: Check) -> None:
        from course.cli import app
        suite = check.root / "suite"
        suite.mkdir()
        (suite / "a.yaml").write_bytes(b"id: a\n" + content)
        code, out, err, escaped = invoke(app, ["evals", "run", "--suite", str(suite),
                                               "--target", str(check.root)])
        clean_cli(check, "python -m course evals run", code, out, err, escaped, (2,))
        one_error_line(check, "python -m course evals run", err, str(suite / "a.yaml"))
    return run


ESCAPED_OPTIONS = ("--cwd", "--session", "--agent-dir", "--script", "-e")


def escaped_option(option: str) -> Callable[[Check], None]:
    """A path on the command line holding terminal escapes is shown escaped, if at all."""
    def run(check: Check) -> None:
        odd = str(check.root / "\x1b]0;pwned\x07\x1b[31mred")
        code, out, err, escaped = agent_cli(check, option, odd)
        clean_cli(check, f"pi-agent {option}", code, out, err, escaped, (0, 2))
    return run


def cases() -> list[Case]:
    found = [Case("bounds", f"reply cut in two at byte {cut}",
                  same_reply(lambda cut=cut: [SPLIT_REPLY[:cut], SPLIT_REPLY[cut:]]))
             for cut in range(1, len(SPLIT_REPLY), 7)]
    found += [Case("bounds", f"reply in pieces of {size} bytes",
                   same_reply(lambda size=size: pieces_of(SPLIT_REPLY, size)))
              for size in (1, 2, 3)]
    found += [Case("bounds", f"surrogates, {name}", surrogate_case(body))
              for name, body in SURROGATES.items()]
    found += [Case("bounds", f"surrogates through wire decode, {name}", wire_decode_case(body))
              for name, body in SURROGATES.items()]
    found += [Case("bounds", f"tool calls: {name}", unassemblable_case(body))
              for name, body in UNASSEMBLABLE.items()]
    found += [Case("bounds", f"JSON {depth:,} deep in {where}", depth_case(read, depth))
              for where, read in json_inputs().items() for depth in DEPTHS]
    found += [Case("bounds", f"YAML aliases 9**{levels} in {where}", alias_case(read, levels))
              for where, read in yaml_inputs().items() for levels in (2, 4, 6, 7, 8, 10)]
    found += [Case("bounds", f"{where} is {kind}", path_case(read, kind))
              for where, read in path_inputs().items() for kind in KINDS]
    found += [Case("bounds", f"notes.txt is {kind}, {name}",
                   tool_path_case(name, "notes.txt", kind))
              for name in TOOL_CALLS for kind in KINDS]
    found += [Case("bounds", f"an eval case holding {name}", eval_suite_case(content))
              for name, content in UNREADABLE_VALUES.items()]
    found += [Case("bounds", f"{option} holding terminal escapes", escaped_option(option))
              for option in ESCAPED_OPTIONS]
    return found


__all__ = ["KEY", "cases"]
