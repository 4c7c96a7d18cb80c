"""Read scripts from JSON or YAML data, with errors that point at the bad spot.

Scripts written as data files are easy for learners to read and for evaluation suites to
share. A typo must be reported at load time as one line naming the exact turn and field
(`turns[2].parts[0]: unknown part kind 'txt'`), not discovered in the middle of a run.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped, unused-ignore]

from .builders import text, thinking, tool_call
from .script import FAILURE_KINDS, Failure, Part, ScriptError, Turn

PART_KINDS = ("text", "thinking", "toolCall")
TURN_OPTIONS = ("stopReason", "usage", "delayMs", "fail", "errorMessage", "retryAfter")
TOOL_CALL_FIELDS = ("name", "arguments", "id")


def load_script(path: str | Path) -> tuple[Turn, ...]:
    """Load and validate a `.json`, `.yaml` or `.yml` script file."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
        if not stat.S_ISREG(mode):  # a FIFO never ends, nor does /dev/zero
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) \
                else "a device or socket"
            raise ScriptError(f"{file}: is {kind}, not a script file")
        raw = file.read_text(encoding="utf-8")
    except OSError as error:
        raise ScriptError(f"{file}: cannot read script file ({error.strerror})") from error
    except UnicodeDecodeError as error:
        raise ScriptError(f"{file}: not UTF-8 text (byte {error.start} cannot be decoded); "
                          "save the script as UTF-8") from None
    try:
        return script_from_data(_parse(file, raw))
    except ScriptError as error:
        if str(error).startswith(str(file)):
            raise
        raise ScriptError(f"{file}: {error}") from None
    except RecursionError:
        raise ScriptError(f"{file}: nested too deeply to read") from None


MAX_DEPTH, MAX_VALUES = 200, 1_000_000  # the agent's bounds too (pi/ai/bounded.py)


def within_bounds(data: Any) -> Any:
    """`data`, once a walk found it at most MAX_DEPTH deep and holding at most MAX_VALUES
    values, counting a YAML alias each time it is used: aliases of aliases ("billion
    laughs") load as a few shared lists that would expand to billions when played."""
    waiting, seen = [(data, 1)], 0
    while waiting:
        item, depth = waiting.pop()
        seen += 1
        if depth > MAX_DEPTH or seen > MAX_VALUES:
            raise ScriptError(f"deeper than {MAX_DEPTH} levels or more than {MAX_VALUES:,} "
                              "values (aliases counted as often as used)")
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            waiting.extend((child, depth + 1) for child in children)
    return data


def _parse(file: Path, raw: str) -> Any:
    suffix = file.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(raw, parse_constant=_not_json)
        elif suffix in (".yaml", ".yml"):
            data = yaml.safe_load(raw)
        else:
            raise ScriptError(f"{file}: unsupported script extension {suffix!r} "
                              "(use .json or .yaml)")
    except ScriptError:
        raise
    except (ValueError, yaml.YAMLError) as error:  # JSONDecodeError is a ValueError
        summary = " ".join(str(error).split())
        raise ScriptError(f"{file}: not valid {suffix[1:].upper()}: {summary}") from error
    return within_bounds(data)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON (scripts hold finite numbers only)")


def script_from_data(data: Any) -> tuple[Turn, ...]:
    """Build turns from `{"turns": [...]}`; raises ScriptError naming the bad field."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise ScriptError('script: expected an object with a "turns" list')
    extra = sorted(set(data) - {"turns"})
    if extra:
        raise ScriptError(f"script: unknown field {extra[0]!r}")
    return tuple(_turn_from_data(index, item) for index, item in enumerate(data["turns"]))


def _turn_from_data(index: int, data: Any) -> Turn:
    where = f"turns[{index}]"
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected an object, got {_kind_of(data)}")
    shorthand = {key: data[key] for key in PART_KINDS if key in data}
    unknown = sorted(set(data) - set(TURN_OPTIONS) - set(PART_KINDS) - {"parts"})
    if unknown:
        raise ScriptError(f"{where}: unknown field {unknown[0]!r}")
    if shorthand and "parts" in data:
        raise ScriptError(f"{where}: use either 'parts' or a single {next(iter(shorthand))!r}")
    parts: tuple[Part, ...] = (
        (_part_from_data(where, shorthand),)
        if shorthand
        else _parts_from_data(where, data.get("parts", []))
    )
    failure = _failure_from_data(where, data)
    try:
        return Turn(
            parts=parts,
            stop_reason=data.get("stopReason"),
            usage=data.get("usage"),
            failure=failure,
            delay_ms=data.get("delayMs", 0),
        )
    except ScriptError as error:
        raise ScriptError(f"{where}.{error}") from None


def _parts_from_data(where: str, data: Any) -> tuple[Part, ...]:
    if not isinstance(data, list):
        raise ScriptError(f"{where}.parts: expected a list, got {_kind_of(data)}")
    return tuple(_part_from_data(f"{where}.parts[{i}]", item) for i, item in enumerate(data))


def _part_from_data(where: str, data: Any) -> Part:
    if not isinstance(data, dict) or not data:
        raise ScriptError(f'{where}: expected an object such as {{"text": "..."}}')
    kinds = [key for key in data if key in PART_KINDS]
    if not kinds:
        raise ScriptError(f"{where}: unknown part kind {next(iter(data))!r}")
    kind = kinds[0]
    allowed = {"thinking": {"thinking", "signature"}}.get(kind, {kind})
    extra = sorted(set(data) - allowed)
    if extra:
        raise ScriptError(f"{where}: unexpected field {extra[0]!r} in a {kind} part")
    if kind == "toolCall":
        return _tool_call_from_data(f"{where}.toolCall", data[kind])
    _require_string(f"{where}.{kind}", data[kind])
    if kind == "text":
        return text(data[kind])
    signature = data.get("signature")
    if signature is not None:
        _require_string(f"{where}.signature", signature)
    return thinking(data[kind], signature)


def _tool_call_from_data(where: str, data: Any) -> Part:
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected an object with a name and arguments")
    extra = sorted(set(data) - set(TOOL_CALL_FIELDS))
    if extra:
        raise ScriptError(f"{where}: unknown field {extra[0]!r}")
    _require_string(f"{where}.name", data.get("name"))
    arguments = data.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ScriptError(f"{where}.arguments: expected an object, got {_kind_of(arguments)}")
    call_id = data.get("id")
    if call_id is not None:
        _require_string(f"{where}.id", call_id)
    return tool_call(data["name"], arguments, call_id)


def _failure_from_data(where: str, data: dict[str, Any]) -> Failure | None:
    kind, message = data.get("fail"), data.get("errorMessage")
    if kind is None:
        for option in ("errorMessage", "retryAfter"):
            if data.get(option) is not None:
                raise ScriptError(f"{where}.{option}: only allowed together with 'fail'")
        return None
    if kind not in FAILURE_KINDS:
        raise ScriptError(f"{where}.fail: unknown failure kind {kind!r}")
    if message is not None:
        _require_string(f"{where}.errorMessage", message)
    try:
        return Failure(kind, message, data.get("retryAfter"))
    except ScriptError as error:
        raise ScriptError(f"{where}.{error}") from None


def _require_string(where: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ScriptError(f"{where}: expected a string, got {_kind_of(value)}")


def _kind_of(value: Any) -> str:
    return "null" if value is None else type(value).__name__
