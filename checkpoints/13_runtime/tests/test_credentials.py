"""The API key is found per request, in a fixed order, and never leaks."""

import asyncio
import json
import os
import stat
from pathlib import Path

import httpx
import pytest

from pi.ai.credentials import CredentialError, Credentials
from pi.ai.messages import AssistantMessage, UserMessage
from pi.ai.model import Context, Model, StreamOptions, empty_reply
from pi.ai.registry import WithCredentials, builtin_providers
from pi.ai.stream import AssistantMessageEventStream, produce

STEP = 13
FILE_KEY = "sk-ant-from-file-0123456789"
ENV_KEY = "sk-ant-from-env-0123456789"
CLAUDE = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic",
               base_url="https://api.anthropic.test")
HELLO = Context(messages=(UserMessage(content="Hi", timestamp=0),))
posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def auth_file(tmp_path: Path, data: object, mode: int = 0o600) -> Path:
    path = tmp_path / "agent" / "auth.json"
    path.parent.mkdir()
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    path.chmod(mode)
    return path


def stored(key: str = FILE_KEY) -> dict:
    return {"anthropic": {"type": "api_key", "key": key}}


def test_the_explicit_key_wins_then_the_auth_file_then_the_environment(tmp_path) -> None:
    env = {"ANTHROPIC_API_KEY": ENV_KEY}
    credentials = Credentials(auth_file(tmp_path, stored()), env)
    assert credentials.resolve("anthropic", "sk-explicit") == "sk-explicit"
    assert credentials.resolve("anthropic") == FILE_KEY
    no_file = Credentials(tmp_path / "nowhere" / "auth.json", env)
    assert no_file.resolve("anthropic") == ENV_KEY
    assert no_file.resolve("openai") is None  # nothing anywhere: no key (local servers need none)


def test_the_environment_is_a_mapping_given_in_with_its_own_variable_names(tmp_path) -> None:
    credentials = Credentials(tmp_path / "auth.json", env={"MY_LLM_KEY": "sk-local"},
                              env_keys={"llama": "MY_LLM_KEY"})
    assert credentials.resolve("llama") == "sk-local"
    assert credentials.resolve("anthropic") is None
    assert Credentials(tmp_path / "a.json", env={"OPENAI_API_KEY": "sk-o"}).resolve(
        "openai") == "sk-o"


def test_the_key_is_looked_up_again_for_every_request(tmp_path) -> None:
    credentials = Credentials(tmp_path / "agent" / "auth.json", env={})
    assert credentials.resolve("anthropic") is None
    credentials.store("anthropic", FILE_KEY)
    assert credentials.resolve("anthropic") == FILE_KEY


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_an_auth_file_other_users_can_access_is_refused_with_the_fix(tmp_path, mode) -> None:
    path = auth_file(tmp_path, stored(), mode)
    with pytest.raises(CredentialError) as refused:
        Credentials(path, env={"ANTHROPIC_API_KEY": ENV_KEY}).resolve("anthropic")
    text = str(refused.value)
    assert f"mode {mode:o}" in text and f"chmod 600 {path}" in text
    assert FILE_KEY not in text and "\n" not in text


@posix_only
def test_storing_writes_0600_in_a_0700_folder_and_keeps_other_entries(tmp_path) -> None:
    path = auth_file(tmp_path, {"openai": {"type": "api_key", "key": "sk-o"}})
    Credentials(path, env={}).store("anthropic", FILE_KEY)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"openai": {"type": "api_key", "key": "sk-o"},
                                            **stored()}
    fresh = tmp_path / "new" / "agent" / "auth.json"
    Credentials(fresh, env={}).store("openai", "sk-o")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    assert stat.S_IMODE(fresh.parent.stat().st_mode) == 0o700
    assert not (fresh.parent / "auth.json.tmp").exists()


def test_a_broken_auth_file_is_one_line_with_file_and_line_and_is_never_overwritten(
        tmp_path) -> None:
    path = auth_file(tmp_path, f'{{\n  "anthropic": {{"type": "api_key", "key": "{FILE_KEY}"\n')
    before = path.read_text()
    credentials = Credentials(path, env={})
    with pytest.raises(CredentialError, match=rf"^{path}:3: not valid JSON") as broken:
        credentials.resolve("anthropic")
    assert FILE_KEY not in str(broken.value)
    with pytest.raises(CredentialError):
        credentials.store("openai", "sk-o")
    assert path.read_text() == before


@pytest.mark.parametrize(("entry", "problem"), [
    ({"type": "oauth", "access": FILE_KEY}, 'anthropic.type: only "api_key" entries'),
    ({"type": "api_key", "key": ""}, "anthropic.key: expected a non-empty string"),
    (FILE_KEY, 'anthropic.type: only "api_key" entries'),
    ({"type": FILE_KEY}, 'anthropic.type: only "api_key" entries'),  # a key pasted as the type
])
def test_an_entry_that_is_not_an_api_key_is_named_without_its_secret(tmp_path, entry,
                                                                      problem) -> None:
    credentials = Credentials(auth_file(tmp_path, {"anthropic": entry}), env={})
    with pytest.raises(CredentialError) as refused:
        credentials.resolve("anthropic")
    assert problem in str(refused.value) and FILE_KEY not in str(refused.value)


def test_an_integer_too_long_for_python_is_one_line_naming_the_file(tmp_path) -> None:
    credentials = Credentials(auth_file(tmp_path, '{"anthropic": ' + "9" * 5_000 + "}"), env={})
    with pytest.raises(CredentialError, match=r"auth\.json: a number of more than 4300 digits$"):
        credentials.resolve("anthropic")


def test_no_repr_shows_a_key(tmp_path) -> None:
    credentials = Credentials(auth_file(tmp_path, stored()), env={"ANTHROPIC_API_KEY": ENV_KEY})
    assert ENV_KEY not in repr(credentials) and FILE_KEY not in repr(credentials)
    assert FILE_KEY not in repr(StreamOptions(api_key=FILE_KEY))


class Spy:
    """A provider that records the options it was called with."""

    def __init__(self) -> None:
        self.keys: list[str | None] = []

    def stream(self, model: Model, context: Context,
               options: StreamOptions) -> AssistantMessageEventStream:
        self.keys.append(options.api_key)

        async def nothing(out: AssistantMessageEventStream) -> None:
            out.fail("spy")

        return produce(nothing, empty_reply(model, options))


def through(provider, credentials: Credentials, options: StreamOptions) -> AssistantMessage:
    async def run() -> AssistantMessage:
        return await WithCredentials(provider, credentials).stream(CLAUDE, HELLO, options).result()

    return asyncio.run(run())


def test_with_credentials_puts_the_key_into_the_options_before_the_call(tmp_path) -> None:
    spy = Spy()
    credentials = Credentials(auth_file(tmp_path, stored()), env={})
    through(spy, credentials, StreamOptions())
    through(spy, credentials, StreamOptions(api_key="sk-explicit"))
    through(spy, Credentials(tmp_path / "none.json", env={}), StreamOptions())
    assert spy.keys == [FILE_KEY, "sk-explicit", None]


@posix_only
def test_an_unusable_auth_file_is_an_error_reply_and_the_provider_is_not_called(tmp_path) -> None:
    spy = Spy()
    message = through(spy, Credentials(auth_file(tmp_path, stored(), 0o644), env={}),
                      StreamOptions())
    assert message.stop_reason == "error" and "chmod 600" in message.error_message
    assert spy.keys == [] and FILE_KEY not in message.error_message


def test_a_key_from_the_environment_is_redacted_from_an_http_error(tmp_path) -> None:
    seen: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = {"type": "error", "error": {"type": "authentication_error",
                                           "message": f"bad key {ENV_KEY}"}}
        return httpx.Response(401, json=body)

    async def run() -> AssistantMessage:
        async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
            credentials = Credentials(tmp_path / "auth.json", env={"ANTHROPIC_API_KEY": ENV_KEY})
            providers = builtin_providers(client=client, credentials=credentials)
            return await providers.complete(CLAUDE, HELLO)

    message = asyncio.run(run())
    assert seen[0].headers["x-api-key"] == ENV_KEY
    assert message.error_message == "HTTP 401: bad key ***"


def test_an_unreadable_auth_file_is_an_error_reply_not_an_exception(tmp_path) -> None:
    auth = tmp_path / "auth.json"
    auth.write_bytes(b"\xff\xfe{}")
    auth.chmod(0o600)
    with pytest.raises(CredentialError, match="cannot be read"):
        Credentials(auth_file=auth, env={}).load()


@posix_only
def test_a_key_pasted_with_a_newline_or_a_windows_return_is_used_trimmed(tmp_path) -> None:
    env = {"ANTHROPIC_API_KEY": ENV_KEY + "\r\n"}
    assert Credentials(tmp_path / "none.json", env).resolve("anthropic") == ENV_KEY
    path = auth_file(tmp_path, stored(f"\t{FILE_KEY}\r"))
    assert Credentials(path, {}).resolve("anthropic") == FILE_KEY
    assert Credentials(path, {}).resolve("anthropic", f"{ENV_KEY}\n") == ENV_KEY
