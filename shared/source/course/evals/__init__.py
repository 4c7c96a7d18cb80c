"""course.evals: the eval harness (step 14): measure any checkpoint from 06 on with eval cases.

Cases are data (`cases.py`). Each run prepares a fresh workspace (`workspace.py`), runs the
target checkpoint's eval driver as a subprocess (`driver_client.py`), checks the protocol
(`protocol_checks.py`), judges the work on a frozen view (`judges.py`, `graders.py`) and
settles one outcome (`outcomes.py`), always cleaning up (`phases.py`). The matrix runs cases
× checkpoints (`matrix.py`); reports are JSON, HTML and baseline comparisons.
"""

from course.evals.baseline import BaselineError, Comparison, compare, load_baseline
from course.evals.cases import Case, CaseError, CaseSpec, Expect, load_case, load_suite
from course.evals.driver_client import DriverFailure, Observation, parse_observation, run_driver
from course.evals.graders import command_judge, model_judge
from course.evals.html_report import html_page, write_html
from course.evals.judges import JUDGE_KINDS, freeze, judge_view, run_judges
from course.evals.matrix import (
    Result,
    TargetError,
    checkpoint_step,
    pass_at_k,
    plan,
    run_matrix,
    target,
    targets_in,
)
from course.evals.outcomes import STATUSES, Check, Outcome, Status, Step, infra, verdict
from course.evals.phases import Settings, Target, run_case
from course.evals.predicates import JudgeView
from course.evals.protocol_checks import check_protocol
from course.evals.report import matrix_table, report_data, report_text, write_report
from course.evals.workspace import Prepared, dispose, driver_case, prepare, read_declared

__all__ = [
    "JUDGE_KINDS",
    "STATUSES",
    "BaselineError",
    "Case",
    "CaseError",
    "CaseSpec",
    "Check",
    "Comparison",
    "DriverFailure",
    "Expect",
    "JudgeView",
    "Observation",
    "Outcome",
    "Prepared",
    "Result",
    "Settings",
    "Status",
    "Step",
    "Target",
    "TargetError",
    "check_protocol",
    "checkpoint_step",
    "command_judge",
    "compare",
    "dispose",
    "driver_case",
    "freeze",
    "html_page",
    "infra",
    "judge_view",
    "load_baseline",
    "load_case",
    "load_suite",
    "matrix_table",
    "model_judge",
    "parse_observation",
    "pass_at_k",
    "plan",
    "prepare",
    "read_declared",
    "report_data",
    "report_text",
    "run_case",
    "run_driver",
    "run_judges",
    "run_matrix",
    "target",
    "targets_in",
    "verdict",
    "write_html",
    "write_report",
]
