"""Every provider the course has, in one `Providers`, with the API key found per request
(`WithCredentials`) and put into `options.api_key`, so providers stay as they are."""

from __future__ import annotations

import dataclasses

import httpx

from pi.ai.boundary import Provider, Providers, failed_stream
from pi.ai.credentials import CredentialError, Credentials
from pi.ai.model import Context, Model, StreamOptions
from pi.ai.providers.anthropic_messages import API as ANTHROPIC_API, AnthropicMessagesProvider
from pi.ai.providers.mock import EventSource, MockProvider
from pi.ai.providers.openai_completions import API as OPENAI_API, OpenAICompletionsProvider
from pi.ai.retry import RetryPolicy
from pi.ai.stream import AssistantMessageEventStream

class WithCredentials:
    """A provider that receives the API key found for `model.provider`, request by request."""

    def __init__(self, provider: Provider, credentials: Credentials) -> None:
        self.provider = provider
        self.credentials = credentials

    def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AssistantMessageEventStream:
        """An explicit `options.api_key` wins; an unusable auth file is an error reply."""
        try:
            found = self.credentials.resolve(model.provider, options.api_key)
        except CredentialError as error:
            return failed_stream(model, options, str(error))
        if found is not None and found.key != options.api_key:
            options = dataclasses.replace(options, api_key=found.key)
        return self.provider.stream(model, context, options)


def builtin_providers(
    *, mock: EventSource | None = None, client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None, credentials: Credentials | None = None,
) -> Providers:
    """A `Providers` speaking every api of the course: `mock` answers api `mock`, `client`
    replaces the network, `credentials` (if given) finds each HTTP provider's key per request."""
    providers: dict[str, Provider] = {
        OPENAI_API: OpenAICompletionsProvider(client, retry),
        ANTHROPIC_API: AnthropicMessagesProvider(client, retry),
    }
    if credentials is not None:
        providers = {api: WithCredentials(p, credentials) for api, p in providers.items()}
    if mock is not None:
        providers["mock"] = MockProvider(mock)
    return Providers(providers)
