"""Check values against the one documented protocol schema.

The JSON Schema in `shared/protocol/pi-ai.schema.json` is the contract between every part of
the course. Validating against that file (read as data, never imported as code) keeps the
MockModel honest without making it depend on any other project package. Needs `jsonschema`
(a test dependency), which is why the package facade does not import this module.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry, Resource

BESIDE = Path(__file__).resolve().parent.parent
# In the repository the schema is in shared/protocol/; a practice copy carries it in protocol/.
SCHEMA_CANDIDATES = (
    BESIDE / "shared" / "protocol" / "pi-ai.schema.json",
    BESIDE / "protocol" / "pi-ai.schema.json",
)


def schema_path() -> Path:
    for candidate in SCHEMA_CANDIDATES:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no protocol schema at {' or '.join(map(str, SCHEMA_CANDIDATES))}")


@cache
def load_schema() -> dict[str, Any]:
    """The protocol schema as a dict (read once per process)."""
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    assert isinstance(schema, dict)
    return schema


@cache
def _validator_for(definition: str) -> Any:
    schema = load_schema()
    if definition not in schema["$defs"]:
        raise KeyError(f"the protocol schema has no definition named {definition!r}")
    registry: Registry[Any] = Registry().with_resource(
        schema["$id"], Resource.from_contents(schema)
    )
    return Draft202012Validator({"$ref": f"{schema['$id']}#/$defs/{definition}"}, registry=registry)


def schema_errors(instance: Any, definition: str = "AssistantMessageEvent") -> list[str]:
    """Readable problems of `instance` against `#/$defs/<definition>`; empty when valid."""
    errors = _validator_for(definition).iter_errors(instance)
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message}"
        for error in errors
    ]


def is_valid(instance: Any, definition: str = "AssistantMessageEvent") -> bool:
    return not schema_errors(instance, definition)
