"""One case on one checkpoint, in fixed phases: prepare, execute, collect, check, judge, dispose.

Each phase either hands the next one what it needs or ends the run with an infrastructure
failure naming itself. Disposal runs whatever happened before it (try/finally), and a
failure there is recorded as a secondary code: it never hides or changes the verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from course.evals.cases import Case
from course.evals.driver_client import DRIVER, DriverFailure, parse_observation, run_driver
from course.evals.judges import command_judge, judge_view, model_judge, run_judges
from course.evals.outcomes import Check, Outcome, Phase, infra, path_stats, stub_in, verdict
from course.evals.protocol_checks import check_protocol
from course.evals.workspace import Prepared, ScratchFactory, Snapshot, dispose, prepare
from course.evals.workspace import read_declared, restore, snapshot, temporary_folder


@dataclass(frozen=True)
class Settings:
    """How runs are made: all injectable, so tests control time, folders and the driver."""

    timeout: float = 120.0
    model: str | None = None
    make_folder: ScratchFactory = temporary_folder
    driver: Sequence[str] = field(default=(sys.executable, *DRIVER))


@dataclass(frozen=True)
class Target:
    """A checkpoint folder to measure, and the step it is."""

    folder: Path
    step: int

    @property
    def label(self) -> str:
        return f"{self.step:02d}"


def run_case(case: Case, target: Target, settings: Settings) -> Outcome:
    """Run every phase for `case` on `target`; always one outcome, cleanup always done."""
    before = snapshot(case.workspace)  # the template, to prove the run left it alone
    # [exercise 14-run-case]
    try:
        prepared = prepare(case, settings.make_folder, settings.model)
    except OSError as error:
        return infra(case.id, target.step, "prepare", "workspace_setup", reason=str(error))
    outcome = None
    try:
        outcome = observe_and_judge(case, target, settings, prepared)
        outcome = template_kept(case, target, before) or outcome
    finally:
        try:
            dispose(prepared)
        except OSError:
            fallback = infra(case.id, target.step, "dispose", "cleanup_failed")
            outcome = (outcome or fallback).with_secondary("cleanup_failed")
    return outcome
    # [end]


def template_kept(case: Case, target: Target, before: Snapshot) -> Outcome | None:
    """None if the case's template is as it was; else restore it and fail, naming it.

    Every run works in a copy outside the repository, but a tool call can still name the
    template's absolute path. A changed template would poison every later "fresh" copy.
    """
    changed = restore(case.workspace, before)
    if not changed:
        return None
    where = f"workspaces/{case.spec.workspace}"
    check = Check("template_unchanged", False, f"the run changed its template {where} "
                  f"({', '.join(changed[:3])}); the template was restored")
    return Outcome(case.id, target.step, "protocol_failed", "protocol", check.name,
                   checks=(check,))


def observe_and_judge(case: Case, target: Target, settings: Settings,
                      prepared: Prepared) -> Outcome:
    try:
        observation = parse_observation(
            run_driver(target.folder, prepared, settings.timeout, settings.driver))
    except DriverFailure as failure:
        phase: Phase = "collect" if failure.code == "bad_observation" else "execute"
        reason = failure.detail.replace(str(prepared.root), "<run>")
        return infra(case.id, target.step, phase, failure.code, reason=reason)
    if observation.terminal == "crashed":
        return infra(case.id, target.step, "execute", "agent_crashed", observation.error)
    try:
        files = read_declared(prepared.workspace, case.spec.files)
    except (OSError, ValueError) as error:
        return infra(case.id, target.step, "collect", "files_unreadable", reason=str(error))
    path = observation.active_path
    protocol = check_protocol(observation, case.spec.expect)
    judged: tuple[Check, ...] = ()
    if all(check.passed for check in protocol):
        extra = {"command": command_judge(prepared.workspace, settings.timeout),
                 "model_graded": model_judge(settings.model)}
        try:
            judged = run_judges(case.spec.judges, judge_view(path, files, observation.rpc),
                               extra)
        except Exception as error:  # a judge is harness code; its crash is ours, not the agent's
            return infra(case.id, target.step, "judge", "judge_crashed",
                         reason=f"{type(error).__name__}: {error}")
    outcome = verdict(case.id, target.step, protocol, judged, path_stats(path, len(files)))
    if outcome.status != "passed":
        outcome = replace(outcome, exercise=stub_in(path))
    return outcome
