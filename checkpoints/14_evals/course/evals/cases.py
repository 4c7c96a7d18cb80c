"""Eval cases: YAML files checked when loaded, one line naming the file and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml  # type: ignore[import-untyped, unused-ignore]
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pi.ai.bounded import read_file, what_is_at, within_bounds
from mock_model import ScriptError, script_from_data
from pi.ai.messages import describe_error
from course.evals.judges import JUDGE_KINDS, arg_problem

Terminal = Literal["completed", "error", "aborted", "max_turns"]
# The layer a case guards: a mutant planted in a layer runs that layer's cases (evals/mutants).
Layer = Literal["loop", "concurrency", "tools", "steering", "abort", "session", "compaction",
                "resources", "extensions", "retry", "overflow", "rpc"]


class CaseError(ValueError):
    """A case file that cannot be used; the message names the file and the field."""


class Expect(BaseModel):
    """How the run must end: `completed`, or an error the case declares on purpose."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    terminal: Terminal = "completed"
    error_contains: str | None = None


class CaseSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    prompt: str
    first_checkpoint: int = Field(ge=6, le=14)
    layer: Layer | None = None
    description: str = ""
    workspace: str | None = None
    script: str | None = None
    turns: list[Any] | None = None
    model: str | None = None
    tools: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    judges: tuple[dict[str, Any], ...] = ()
    actions: tuple[dict[str, Any], ...] = ()
    max_turns: int | None = Field(default=None, ge=1)
    expect: Expect = Expect()
    setup: dict[str, Any] = Field(default_factory=dict)
    session: str | None = None


@dataclass(frozen=True)
class Case:
    """A checked case with its names resolved; `script` is MockModel data ({"turns": ...})."""

    spec: CaseSpec
    file: Path
    workspace: Path | None
    script: dict[str, Any] | None
    session: Path | None

    @property
    def id(self) -> str:
        return self.spec.id


def resolved(kind: str, name: str | None, file: Path) -> Path | None:
    """`kind/name` in the nearest folder above the case file that has it (`evals/workspaces/`,
    …), or in the course's shared data (`shared/data/...`)."""
    if name is None:
        return None
    for base in (file.parent, *file.parent.parents):
        for folder in (base, base / "shared" / "data", base / "data"):
            if (folder / kind / name).exists():
                return folder / kind / name
    raise CaseError(f"{file}: {kind[:-1]}: no {kind}/{name} above the case file")


def script_of(spec: CaseSpec, file: Path) -> dict[str, Any] | None:
    """The MockModel turns, inline (`turns:`) or from a script file (`script:`), checked."""
    if spec.turns is not None:
        data: Any = {"turns": spec.turns}
    elif (path := resolved("scripts", spec.script, file)) is not None:
        data = read_yaml(path)
    else:
        return None
    try:
        script_from_data(data)
    except ScriptError as error:
        raise CaseError(f"{file}: script: {error}") from None
    return dict(data)


def check_spec(spec: CaseSpec, file: Path) -> None:
    if sum(x is not None for x in (spec.turns, spec.script, spec.model)) != 1:
        raise CaseError(f"{file}: give exactly one of turns, script or model")
    for index, judge in enumerate(spec.judges):
        kind, arg = next(iter(judge.items()), ("", None))
        if len(judge) != 1 or kind not in JUDGE_KINDS:
            raise CaseError(f"{file}: judges[{index}]: expected one of {', '.join(JUDGE_KINDS)}")
        problem = arg_problem(kind, arg)
        if problem is None and isinstance(arg, dict) and "path" in arg:
            declared = arg["path"] in spec.files
            problem = None if declared else f"{kind}: {arg['path']} is not in the case's files"
        if problem:
            raise CaseError(f"{file}: judges[{index}].{problem}")


def read_yaml(file: Path) -> Any:
    try:
        return within_bounds(yaml.safe_load(read_file(file)))
    except OSError as error:
        raise CaseError(f"{file}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise CaseError(f"{file}: not valid UTF-8 (byte {error.start})") from None
    except ValueError as error:  # 2024-02-30, an integer of 5,000 digits, TooLarge
        raise CaseError(f"{file}: {str(error).split(':')[0]}") from None
    except RecursionError:
        raise CaseError(f"{file}: nested too deeply to read") from None
    except yaml.YAMLError as error:
        raise CaseError(f"{file}: not valid YAML: {' '.join(str(error).split())}") from None


def load_case(file: Path) -> Case:
    """Read, check and resolve one case file; CaseError (one line) if anything is wrong."""
    try:
        spec = CaseSpec.model_validate(read_yaml(file))
    except ValidationError as error:
        raise CaseError(describe_error(error, str(file))) from None
    check_spec(spec, file)
    return Case(spec, file, resolved("workspaces", spec.workspace, file),
                script_of(spec, file), resolved("sessions", spec.session, file))


def load_suite(folder: Path) -> list[Case]:
    """Every `*.yaml` case in `folder`, sorted by id; ids must be unique."""
    found = what_is_at(folder)
    if found != "a folder":
        raise CaseError(f"{folder}: no such suite folder" if found == "nothing"
                        else f"{folder}: is {found}, not a suite folder")
    cases = [load_case(file) for file in sorted(folder.glob("*.y*ml"))]
    if not cases:
        raise CaseError(f"{folder}: the suite has no case files (*.yaml)")
    seen: dict[str, Path] = {}
    for case in cases:
        if case.id in seen:
            raise CaseError(f"{case.file}: id {case.id!r} is also used by {seen[case.id].name}")
        seen[case.id] = case.file
    return sorted(cases, key=lambda case: case.id)
