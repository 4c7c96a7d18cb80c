"""Where an API key comes from, looked up per request as in Pi: the key passed in options, then
the 0600 auth file (`~/.pi-course/agent/auth.json`, Pi's format), then the provider's env var.
An auth file other users can read is refused; no error text ever holds a key."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi.ai.bounded import TooLarge, read_file, read_json, what_is_at

AUTH_FILE = Path("~/.pi-course/agent/auth.json")
ENV_KEYS: Mapping[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
PRIVATE = 0o600


class CredentialError(Exception):
    """The stored credentials cannot be used; one line naming the file, never the key."""


class Credentials:
    """Finds the API key for a provider; holds no key itself."""

    def __init__(self, auth_file: Path | None = None, env: Mapping[str, str] | None = None,
                 env_keys: Mapping[str, str] = ENV_KEYS) -> None:
        self.auth_file = auth_file if auth_file is not None else AUTH_FILE.expanduser()
        self.env = env if env is not None else os.environ
        self.env_keys = env_keys

    def resolve(self, provider: str, explicit: str | None = None) -> str | None:
        """The key for `provider`, or None (a local server may need none); CredentialError
        for an auth file that must not be used."""
        if explicit and explicit.strip():
            return explicit.strip()
        stored = self.load().get(provider)
        if stored is not None:
            where = f"{self.auth_file}: {provider}"
            if not isinstance(stored, dict) or stored.get("type") != "api_key":
                raise CredentialError(f'{where}.type: only "api_key" entries are supported')
            if not isinstance(key := stored.get("key"), str) or not key.strip():
                raise CredentialError(f"{where}.key: expected a non-empty string")
            return key.strip()
        name = self.env_keys.get(provider)
        if name and self.env.get(name, "").strip():
            return self.env[name].strip()
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
            raise CredentialError(f"{path}: other users can access it (mode {mode & 0o777:o}); "
                                  f"refusing to read keys from it. Fix: chmod 600 {path}")
        try:
            data = read_json(read_file(path))
        except json.JSONDecodeError as error:
            raise CredentialError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
        except TooLarge as error:
            raise CredentialError(f"{path}: {error}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise CredentialError(f"{path}: cannot be read ({error})") from None
        if not isinstance(data, dict):
            raise CredentialError(f"{path}: expected a JSON object of providers")
        return data

    def store(self, provider: str, key: str) -> None:
        """Save `key` for `provider`, keeping every other entry (an unreadable auth file is a
        CredentialError, so storing never loses what was stored). The file is written to a
        temporary one created 0600, in a folder created 0700, then moved into place."""
        data = self.load()
        data[provider] = {"type": "api_key", "key": key}
        path = self.auth_file
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), PRIVATE)  # a leftover .tmp may have other bits
            handle.write(json.dumps(data, indent=2) + "\n")
        os.replace(temporary, path)

