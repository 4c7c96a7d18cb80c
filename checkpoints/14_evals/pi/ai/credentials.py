"""Where an API key comes from, decided again for every request.

A key is looked up in this order, as in Pi: the key the caller passed (`options.api_key`),
then the key stored for the provider in the course's own auth file
(`~/.pi-course/agent/auth.json`, Pi's format: `{"anthropic": {"type": "api_key", "key":
"…"}}`), then the provider's environment variable (`ANTHROPIC_API_KEY`, …). It is looked up
per request, not once at start, so a key stored or exported meanwhile is used by the next
call, and no long-lived object holds a key it does not need.

The auth file holds secrets, so it is written readable by its owner only (0600), and a file
that other users can read is *refused*, not merely warned about: a warning scrolls by, and a
leaked key keeps working. The error says how to fix it. No error text ever holds a key.
A key pasted with a trailing newline (or from a Windows `.env`, with `\r`) is trimmed: the
whitespace is never part of a key, and a header value with a `\r` in it is refused by httpx
with the whole header quoted in its message.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi.ai.bounded import TooLarge, read_file, read_json, what_is_at

AUTH_FILE = Path("~/.pi-course/agent/auth.json")
ENV_KEYS: Mapping[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
PRIVATE = 0o600


class CredentialError(Exception):
    """The stored credentials cannot be used; one line naming the file, never the key."""


@dataclass(frozen=True)
class Credential:
    """A key and where it was found; the key never shows in `repr`."""

    key: str = field(repr=False)
    source: str


class Credentials:
    """Finds the API key for a provider; holds no key itself."""

    def __init__(
        self, auth_file: Path | None = None, env: Mapping[str, str] | None = None,
        env_keys: Mapping[str, str] = ENV_KEYS,
    ) -> None:
        self.auth_file = auth_file if auth_file is not None else AUTH_FILE.expanduser()
        self.env = env if env is not None else os.environ
        self.env_keys = env_keys

    def resolve(self, provider: str, explicit: str | None = None) -> Credential | None:
        """The key to use for `provider`, or None when there is none (a local server may
        need none). Raises CredentialError for an auth file that must not be used.
        """
        if explicit and explicit.strip():
            return Credential(explicit.strip(), "options.api_key")
        stored = self.load().get(provider)
        if stored is not None:
            return Credential(stored_key(stored, f"{self.auth_file}: {provider}"),
                              str(self.auth_file))
        name = self.env_keys.get(provider)
        if name and self.env.get(name, "").strip():
            return Credential(self.env[name].strip(), f"${name}")
        return None

    def load(self) -> dict[str, Any]:
        """The auth file's entries by provider; {} when there is no file."""
        path = self.auth_file
        kind = what_is_at(path)
        if kind == "nothing":
            return {}
        if kind != "a file":
            raise CredentialError(f"{path}: is {kind}, not a file")
        mode = path.stat().st_mode
        if os.name == "posix" and mode & 0o077:
            raise CredentialError(
                f"{path}: other users can access it (mode {mode & 0o777:o}); "
                f"refusing to read keys from it. Fix: chmod 600 {path}")
        try:
            text = read_file(path)
        except (OSError, UnicodeDecodeError) as error:
            raise CredentialError(f"{path}: cannot be read ({error})") from None
        try:
            data = read_json(text)
        except json.JSONDecodeError as error:
            raise CredentialError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
        except TooLarge as error:
            raise CredentialError(f"{path}: {error}") from None
        if not isinstance(data, dict):
            raise CredentialError(f"{path}: expected a JSON object of providers")
        return data

    def store(self, provider: str, key: str) -> None:
        """Save `key` for `provider`, keeping every other entry; the file is written 0600.

        An auth file that cannot be read is left as it is (CredentialError): nothing stored
        is ever lost by storing something else.
        """
        data = self.load()
        data[provider] = {"type": "api_key", "key": key}
        write_private(self.auth_file, json.dumps(data, indent=2) + "\n")


def stored_key(entry: object, where: str) -> str:
    """The key of one auth file entry; only `api_key` entries are understood here."""
    if not isinstance(entry, dict) or entry.get("type") != "api_key":
        kind = entry.get("type") if isinstance(entry, dict) else type(entry).__name__
        raise CredentialError(f"{where}: only api_key entries are supported, found {kind!r}")
    key = entry.get("key")
    if not isinstance(key, str) or not key.strip():
        raise CredentialError(f"{where}.key: expected a non-empty string")
    return key.strip()


def write_private(path: Path, text: str) -> None:
    """Write `text` so that only the owner can ever read it, replacing `path` at once.

    The file is created 0600 (not chmod-ed after writing, which leaves a moment when it is
    readable), in a folder created 0700, then moved into place.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        if hasattr(os, "fchmod"):
            os.fchmod(handle.fileno(), PRIVATE)  # a leftover temporary file may have other bits
        handle.write(text)
    os.replace(temporary, path)
