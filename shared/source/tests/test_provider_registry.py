"""Every model reaches the provider for its api; models are named "provider/id"."""

import asyncio

import httpx
import pytest

from mock_model import MockModel, text, turn
from mock_model.http import MockTransport
from pi.ai.messages import AssistantMessage, UserMessage
from pi.ai.model import Context, Model
from pi.ai.registry import (
    DEFAULT_MODEL,
    ModelRefError,
    builtin_models,
    builtin_providers,
    find_model,
    parse_model_ref,
)

STEP = 13
HELLO = Context(messages=(UserMessage(content="Hi", timestamp=0),))


def ask(model: Model, **kwargs) -> AssistantMessage:
    async def run() -> AssistantMessage:
        return await builtin_providers(**kwargs).complete(model, HELLO)

    return asyncio.run(run())


def test_the_mock_api_goes_to_the_mockmodel_in_process() -> None:
    mock = MockModel([turn(text("Hello from the mock."))])
    message = ask(find_model(DEFAULT_MODEL, builtin_models(env={})), mock=mock)
    assert message.stop_reason == "stop" and message.content[0].text == "Hello from the mock."
    assert (message.api, message.model) == ("mock", "mock-1")
    assert mock.requests[0]["messages"][0]["content"] == "Hi"


def test_both_http_apis_reach_their_wire_through_one_client() -> None:
    mock = MockModel([turn(text("Via chat completions.")), turn(text("Via messages."))])
    models = builtin_models(env={"OPENAI_BASE_URL": "http://mock/v1",
                                 "ANTHROPIC_BASE_URL": "http://mock"})

    async def run() -> list[AssistantMessage]:
        async with httpx.AsyncClient(transport=MockTransport(mock)) as client:
            providers = builtin_providers(client=client)
            return [await providers.complete(find_model(ref, models), HELLO)
                    for ref in ("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6")]

    first, second = asyncio.run(run())
    assert (first.api, first.content[0].text) == ("openai-completions", "Via chat completions.")
    assert (second.api, second.content[0].text) == ("anthropic-messages", "Via messages.")
    assert "max_tokens" in mock.wire_requests[1] and "stream_options" in mock.wire_requests[0]


def test_an_unknown_api_is_an_error_reply_naming_it() -> None:
    odd = Model(id="x-1", api="carrier-pigeon", provider="birds")
    message = ask(odd)
    assert message.stop_reason == "error"
    assert message.error_message == "no provider registered for api 'carrier-pigeon'"


def test_without_a_mockmodel_the_mock_api_is_not_served() -> None:
    message = ask(find_model(DEFAULT_MODEL, builtin_models(env={})))
    assert message.stop_reason == "error" and "'mock'" in message.error_message


@pytest.mark.parametrize(("ref", "parts"), [
    ("mock/mock-1", ("mock", "mock-1")),
    ("openrouter/anthropic/claude-sonnet-4-6", ("openrouter", "anthropic/claude-sonnet-4-6")),
    ("  openai/gpt-5.4-mini ", ("openai", "gpt-5.4-mini")),
])
def test_a_model_string_is_provider_slash_id_and_the_id_may_hold_slashes(ref, parts) -> None:
    assert parse_model_ref(ref) == parts


@pytest.mark.parametrize("ref", ["gpt-5.4-mini", "/mock-1", "mock/", ""])
def test_a_model_string_without_both_parts_is_refused_in_one_line(ref) -> None:
    with pytest.raises(ModelRefError, match=r"expected provider/model-id, e\.g\. mock/mock-1$"):
        parse_model_ref(ref)


def test_base_urls_come_from_settings_then_environment_then_the_public_address() -> None:
    env = {"OPENAI_BASE_URL": "http://localhost:8080/v1", "ANTHROPIC_BASE_URL": "http://env"}
    models = builtin_models(env=env, base_urls={"anthropic": "http://settings"})
    assert models["openai/gpt-5.4-mini"].base_url == "http://localhost:8080/v1"
    assert models["anthropic/claude-sonnet-4-6"].base_url == "http://settings"
    public = builtin_models(env={})
    assert public["openai/gpt-5.4-mini"].base_url == "https://api.openai.com/v1"
    assert public["anthropic/claude-sonnet-4-6"].base_url == "https://api.anthropic.com"
    assert set(public) == {"mock/mock-1", "openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6"}


def test_an_unlisted_id_of_a_known_provider_borrows_that_providers_settings() -> None:
    models = builtin_models(env={"OPENAI_BASE_URL": "http://localhost:8080/v1"})
    local = find_model("openai/qwen2.5-coder", models)
    assert (local.id, local.api, local.base_url) == (
        "qwen2.5-coder", "openai-completions", "http://localhost:8080/v1")
    with pytest.raises(ModelRefError, match=r"unknown provider 'gemini' \(known: anthropic, "
                                            r"mock, openai\)"):
        find_model("gemini/gemini-2.5-pro", models)


def test_the_models_pi_agents_help_names_are_in_the_built_in_catalog() -> None:
    # The help names them literally (importing the catalog would slow `--help` down); this
    # keeps the catalog the one place a model id lives: drop one there and this fails.
    from pi.modes.main import EXAMPLE_MODELS, HELP

    assert set(EXAMPLE_MODELS) <= set(builtin_models(env={}))
    assert all(ref in HELP for ref in EXAMPLE_MODELS)
