"""course.evals: the eval harness (step 14); `phases.py` runs one case on one checkpoint."""
