"""The base of every coding tool's arguments, named the way Pi names them.

Models trained on Pi's tools send camelCase (`oldText`, `ignoreCase`); Python code reads
snake_case. The alias generator gives each field both names, and the JSON Schema the model
sees (`AgentTool.spec`) uses the camelCase ones.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ToolParams(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)
