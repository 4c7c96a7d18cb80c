"""course.evals: the eval harness (step 14): measure any checkpoint from 06 on with eval cases.

Cases (`cases.py`) run in a fresh workspace (`workspace.py`) through the checkpoint's driver
(`driver_client.py`), in the phases of `phases.py`; `report.py` writes what they found.
"""
