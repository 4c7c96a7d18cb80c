"""Keys in every shape, and servers that fail in every way while echoing them.

A key pasted with `\\r`, `\\n` or `\\t` around it, or with a space inside; servers that
echo the Authorization header in an error (whole, in repr or JSON form, URL-quoted, cut at
the 200th or 500th character, or only its first part), over HTTP errors, SSE error chunks,
unreadable chunks and refused connections, with a retry in between. The run goes through
the whole runtime; then the key must be in no form in the events (json/rpc output), the
session file, the HTML export, or any file written.

Project instructions that lead out of the project (an `AGENTS.md` linking to a file with a
key next to the project, to /proc/self/environ, to /dev/zero, a FIFO) must not reach the
server either: every request body the server got is searched too.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hostile.checks import (
    KEY,
    OUTSIDE_SECRET,
    as_json,
    clean_cli,
    invoke,
    make_outside,
    no_leak,
    no_leak_in_files,
    one_error_line,
    plain,
)
from hostile.runner import Case, Check

KEYS = {"plain": KEY, "ending in \\r": KEY + "\r", "ending in \\n": KEY + "\n",
        "ending in \\r\\n": KEY + "\r\n", "starting with \\t": "\t" + KEY,
        "spaces around": f"  {KEY} ", "a space inside": KEY[:14] + " " + KEY[14:],
        "a \\r inside": KEY[:14] + "\r" + KEY[14:]}


def header_of(request: Any) -> str:
    return request.headers.get("authorization") or request.headers.get("x-api-key") or KEY


def sse(*chunks: str) -> bytes:
    return "".join(f"data: {chunk}\n\n" for chunk in chunks).encode()


def stream(body: bytes) -> Any:
    import httpx
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def json_error(status: int, message: str) -> Any:
    import httpx
    return httpx.Response(status, json={"error": {"message": message}})


def text_error(status: int, body: str) -> Any:
    import httpx
    return httpx.Response(status, text=body)


def refuse(request: Any) -> Any:
    import httpx
    raise httpx.ConnectError(f"cannot connect with headers {dict(request.headers)!r}")


SERVERS: dict[str, Callable[[Any], Any]] = {
    "401 echoing the header": lambda r: json_error(401, f"Incorrect API key: {header_of(r)}"),
    "500 echo straddling the 500th character": lambda r: text_error(
        500, "x" * 490 + header_of(r) + "y" * 100),
    "400 echo in repr form": lambda r: text_error(400, f"bad header {header_of(r)!r}"),
    "400 echo in bytes repr form": lambda r: text_error(400, f"{header_of(r).encode()!r}"),
    "400 echo JSON-escaped": lambda r: text_error(400, json.dumps({"sent": header_of(r)})),
    "400 echo URL-quoted": lambda r: text_error(400, f"?key={quote(header_of(r))}"),
    "400 echo of the first part only": lambda r: json_error(400, header_of(r)[:-5]),
    "SSE error chunk echoing": lambda r: stream(sse(json.dumps(
        {"error": {"message": f"denied {header_of(r)}"}}))),
    "SSE chunk not JSON, key at the 200 cut": lambda r: stream(sse(
        "{" + "y" * 185 + header_of(r) + "z" * 50)),
    "a refused connection naming the headers": refuse,
    "429 then 500, both echoing (one retry)": lambda r: json_error(
        429 if not r.extensions.get("seen") else 500, f"slow down {header_of(r)}"),
}


def provider_setup(check: Check, key: str, handler: Callable[[Any], Any],
                   provider: str = "openai") -> tuple[Any, list[bytes]]:
    """A runtime on a fake server: requests go to `handler`, bodies are kept."""
    import httpx

    from pi.ai.credentials import Credentials
    from pi.ai.model import Model
    from pi.ai.providers.http_exchange import RetryPolicy
    from pi.ai.registry import builtin_providers
    from pi.coding_agent.runtime.config import RuntimeConfig
    from pi.coding_agent.session.entries import fixed_clock, sequential_ids

    bodies: list[bytes] = []
    calls = {"n": 0}

    def record(request: httpx.Request) -> httpx.Response:
        bodies.append(request.read())
        request.extensions["seen"] = calls["n"] > 0
        calls["n"] += 1
        return handler(request)

    async def no_sleep(seconds: float) -> None:
        return None

    client = httpx.AsyncClient(transport=httpx.MockTransport(record))
    env = {"OPENAI_API_KEY": key, "ANTHROPIC_API_KEY": key}
    credentials = Credentials(check.root / "agent" / "auth.json", env)
    providers = builtin_providers(client=client, credentials=credentials,
                                  retry=RetryPolicy(max_retries=1, sleep=no_sleep))
    if provider == "openai":
        model = Model(id="gpt-h", api="openai-completions", provider="openai",
                      base_url="https://openai.invalid/v1")
    else:
        model = Model(id="claude-h", api="anthropic-messages", provider="anthropic",
                      base_url="https://anthropic.invalid")
    work = check.root / "work"
    work.mkdir(exist_ok=True)
    config = RuntimeConfig(cwd=work, model=model, providers=providers,
                           clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
                           session_file=check.root / "s.jsonl", agent_dir=check.root / "agent",
                           auto_retry=False, context_ceiling=check.root)
    return config, bodies


def run_runtime(config: Any) -> tuple[list[str], str, str]:
    """Prompt once; the JSON of every event, the last error text, the HTML export."""
    from pi.coding_agent.runtime.commands import transcript_html
    from pi.coding_agent.runtime.runtime import Runtime
    from pi.modes.print_mode import event_json

    async def go() -> tuple[list[str], str, str]:
        runtime = Runtime(config)
        events: list[str] = []
        runtime.subscribe(lambda event: events.append(as_json(event_json(event))))
        await runtime.prompt("hello")
        await runtime.flush()
        last = [m for m in runtime.messages if getattr(m, "role", "") == "assistant"]
        error = (last[-1].error_message or "") if last else ""
        html = transcript_html(runtime)
        await runtime.close()
        return events, error, html

    return asyncio.run(go())


def secret_case(key_name: str, server: str, provider: str = "openai") -> Callable[[Check], None]:
    def run(check: Check) -> None:
        key = KEYS[key_name]
        config, bodies = provider_setup(check, key, SERVERS[server], provider)
        events, error, html = run_runtime(config)
        for form_key in {key, key.strip()}:
            no_leak(check, "the events", events, form_key)
            no_leak(check, "the error text", [error], form_key)
            no_leak(check, "the HTML export", [html], form_key)
            no_leak_in_files(check, check.root, form_key)
        plain(check, "the error text", [error])
        if not error:
            check.crash("a failing server gave no error text")
        elif len(error.splitlines()) > 3:
            check.crash(f"the error text has {len(error.splitlines())} lines")
        for body in bodies:
            if KEY.strip() in body.decode("utf-8", "replace"):
                check.leaked("the key was sent in a request body")
    return run


CONTEXT_FILES = ("a link to a file with a key outside the project", "a link to /proc/self/environ",
                 "a link to /dev/zero", "a FIFO", "CLAUDE.md linking outside, AGENTS.md missing",
                 "a link loop")


def context_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        import httpx
        outside = make_outside(check)
        work = check.root / "work"
        work.mkdir()
        target = work / "AGENTS.md"
        if name.startswith("a link to a file"):
            target.symlink_to(outside / "secret.txt")
        elif name.endswith("environ"):
            target.symlink_to("/proc/self/environ")
        elif name.endswith("/dev/zero"):
            target.symlink_to("/dev/zero")
        elif name == "a FIFO":
            os.mkfifo(target)
        elif name.startswith("CLAUDE.md"):
            (work / "CLAUDE.md").symlink_to(outside / "secret.txt")
        else:
            target.symlink_to(target)
        done = lambda r: stream(sse(json.dumps({"choices": [{"delta": {"content": "ok"},  # noqa: E731
                                                             "finish_reason": "stop"}]})))
        config, bodies = provider_setup(check, KEY, done)
        events, error, html = run_runtime(config)
        sent = b"".join(bodies).decode("utf-8", "replace")
        if OUTSIDE_SECRET in sent or KEY in sent:
            check.leaked("a file outside the project was sent to the server")
        if "PATH=" in sent or "HOME=" in sent:
            check.leaked("the process environment was sent to the server")
        if error:
            check.crash(f"the run failed: {error[:200]}")
        del events, html, httpx
    return run


AUTH_FILES = {
    "the key as an entry's type": as_json({"openai": {"type": KEY}}),
    "the key as the whole entry": as_json({"openai": KEY}),
    "the key in an oauth entry": as_json({"openai": {"type": "oauth", "access": KEY}}),
    "the key as a field's name": as_json({"openai": {KEY: "api_key"}}),
    "the key beside an integer of 5,000 digits": as_json({"openai": {"key": KEY}})[:-2]
    + ', "n": ' + "9" * 5_000 + "}}",
}


def auth_case(name: str) -> Callable[[Check], None]:
    """An auth.json that cannot be used refuses the run in one line naming the file, and no
    value read from it comes out: a key pasted into the wrong field is still a key."""
    def run(check: Check) -> None:
        from pi.modes.main import app
        path = check.root / "agent" / "auth.json"
        path.parent.mkdir()
        path.write_text(AUTH_FILES[name])
        path.chmod(0o600)
        code, out, err, escaped = invoke(app, [
            "-p", "hi", "--model", "openai/gpt-h", "--cwd", str(check.root),
            "--agent-dir", str(path.parent)])
        clean_cli(check, "pi-agent -p with auth.json", code, out, err, escaped, (2,))
        one_error_line(check, "pi-agent -p with auth.json", err, str(path))
        no_leak(check, "pi-agent's output", [out, err])
    return run


def cases() -> list[Case]:
    found = [Case("secrets", f"key {key} / {server}", secret_case(key, server))
             for key in KEYS for server in SERVERS]
    found += [Case("secrets", f"anthropic, key {key} / {server}", secret_case(key, server, "x"))
              for key in ("ending in \\r", "spaces around")
              for server in ("401 echoing the header", "500 echo straddling the 500th character",
                             "a refused connection naming the headers")]
    found += [Case("secrets", f"AGENTS.md is {name}", context_case(name)) for name in CONTEXT_FILES]
    found += [Case("secrets", f"auth.json holds {name}", auth_case(name)) for name in AUTH_FILES]
    return found


__all__ = ["Path", "cases"]
