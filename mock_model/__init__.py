"""mock_model: a deterministic fake LLM speaking Pi's pi-ai event protocol.

Scripts go in, canonical stream events come out, identically on every run. The package uses
no other project code, so any checkpoint can test against it. `mock_model.validate` (schema
checks) is left out of this facade because it needs the optional `jsonschema` dependency;
`mock_model.http` (the same scripts over OpenAI and Anthropic HTTP) is imported on its own.
"""

from .builders import fail, text, thinking, tool_call, turn
from .chunking import DEFAULT_SPLIT, SINGLE_CHARACTERS, WHOLE_BLOCKS, SplitPolicy
from .clock import FakeClock
from .loading import load_script, script_from_data
from .model import MockModel, Responder, is_aborted
from .script import (
    FAILURE_KINDS,
    Failure,
    FailureKind,
    Part,
    ScriptError,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Turn,
)
from .usage import derive_usage

__all__ = [
    "DEFAULT_SPLIT",
    "FAILURE_KINDS",
    "SINGLE_CHARACTERS",
    "WHOLE_BLOCKS",
    "Failure",
    "FailureKind",
    "FakeClock",
    "MockModel",
    "Part",
    "Responder",
    "ScriptError",
    "SplitPolicy",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "Turn",
    "derive_usage",
    "fail",
    "is_aborted",
    "load_script",
    "script_from_data",
    "text",
    "thinking",
    "tool_call",
    "turn",
]
