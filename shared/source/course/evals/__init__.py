"""course.evals: the eval harness (step 14): measure any checkpoint from 06 on with eval cases.

Cases are data (`cases.py`). Each run prepares a fresh workspace (`workspace.py`), runs the
target checkpoint's eval driver as a subprocess (`driver_client.py`), checks the protocol
(`protocol_checks.py`), judges the work on a frozen view (`judges.py`) and settles one outcome
(`outcomes.py`), always cleaning up (`phases.py`). The matrix runs cases × checkpoints
(`matrix.py`); `report.py` writes the JSON report and compares it with a baseline.
"""
