"""The catalog: the built-in models, "provider/model-id" strings, and every provider of the course
in one `Providers`, with the API key found per request (`WithCredentials`). Base URLs come from
settings, then the env (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`), then the public address."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import httpx

from pi.ai.credentials import CredentialError, Credentials
from pi.ai.model import Context, Model, Provider, Providers, StreamOptions, failed_stream
from pi.ai.providers.anthropic_messages import API as ANTHROPIC_API, AnthropicMessagesProvider
from pi.ai.providers.mock import EventSource, MockProvider
from pi.ai.providers.openai_completions import API as OPENAI_API, OpenAICompletionsProvider
from pi.ai.providers.http_exchange import RetryPolicy
from pi.ai.stream import AssistantMessageEventStream

DEFAULT_MODEL = "mock/mock-1"
PUBLIC_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


class ModelRefError(ValueError):
    """A model string that names no model we can build; the text says which and why."""


def builtin_models(env: Mapping[str, str] | None = None,
                   base_urls: Mapping[str, str] | None = None) -> dict[str, Model]:
    """The built-in models by "provider/id"; `base_urls` (settings) beat `env`."""
    env = os.environ if env is None else env
    settings = base_urls or {}

    def url(provider: str) -> str:
        return (settings.get(provider) or env.get(BASE_URL_ENV[provider])
                or PUBLIC_BASE_URLS[provider])

    models = [
        Model(id="mock-1", name="MockModel", api="mock", provider="mock"),
        Model(id="gpt-5.4-mini", name="GPT-5.4 mini", api=OPENAI_API, provider="openai",
              base_url=url("openai"), input=("text", "image"), context_window=400_000,
              max_tokens=128_000),
        Model(id="claude-sonnet-4-6", name="Claude Sonnet 4.6", api=ANTHROPIC_API,
              provider="anthropic", base_url=url("anthropic"), reasoning=True,
              input=("text", "image"), context_window=1_000_000, max_tokens=64_000)]
    return {f"{model.provider}/{model.id}": model for model in models}


def parse_model_ref(ref: str) -> tuple[str, str]:
    """("provider", "model-id") from "provider/model-id"; the id may hold more slashes."""
    provider, slash, model_id = ref.strip().partition("/")
    if not (slash and provider and model_id):
        raise ModelRefError(f"model {ref!r}: expected provider/model-id, e.g. {DEFAULT_MODEL}")
    return provider, model_id


def find_model(ref: str, models: Mapping[str, Model]) -> Model:
    """The model `ref` names; an unlisted id of a known provider (a newer model) gets that
    provider's api, base URL and limits. An unknown provider is an error listing the known."""
    provider, model_id = parse_model_ref(ref)
    known = models.get(f"{provider}/{model_id}")
    if known is not None:
        return known
    template = next((model for model in models.values() if model.provider == provider), None)
    if template is None:
        providers = ", ".join(sorted({model.provider for model in models.values()}))
        raise ModelRefError(f"model {ref!r}: unknown provider {provider!r} (known: {providers})")
    return template.model_copy(update={"id": model_id, "name": model_id})


class WithCredentials:
    """A provider that receives the API key found for `model.provider`, request by request."""

    def __init__(self, provider: Provider, credentials: Credentials) -> None:
        self.provider = provider
        self.credentials = credentials

    def stream(self, model: Model, context: Context,
               options: StreamOptions) -> AssistantMessageEventStream:
        """An explicit `options.api_key` wins; an unusable auth file is an error reply."""
        try:
            found = self.credentials.resolve(model.provider, options.api_key)
        except CredentialError as error:
            return failed_stream(model, options, str(error))
        if found is not None and found != options.api_key:
            options = dataclasses.replace(options, api_key=found)
        return self.provider.stream(model, context, options)


def builtin_providers(*, mock: EventSource | None = None, client: httpx.AsyncClient | None = None,
                      retry: RetryPolicy | None = None,
                      credentials: Credentials | None = None) -> Providers:
    """A `Providers` speaking every api of the course: `mock` answers api `mock`, `client`
    replaces the network, `credentials` (if given) finds each HTTP provider's key per request."""
    providers: dict[str, Provider] = {OPENAI_API: OpenAICompletionsProvider(client, retry),
                                      ANTHROPIC_API: AnthropicMessagesProvider(client, retry)}
    if credentials is not None:
        providers = {api: WithCredentials(p, credentials) for api, p in providers.items()}
    if mock is not None:
        providers["mock"] = MockProvider(mock)
    return Providers(providers)
